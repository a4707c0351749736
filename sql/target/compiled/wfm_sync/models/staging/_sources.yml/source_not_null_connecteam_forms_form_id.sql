
    
    



select form_id
from "warehouse"."connecteam"."forms"
where form_id is null


