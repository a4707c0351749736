
    
    



select id
from "warehouse"."connecteam"."shifts"
where id is null


