
    
    



select form_id
from "warehouse"."staging"."stg_connecteam__forms"
where form_id is null


