
    
    



select scheduler_id
from "warehouse"."staging"."stg_connecteam__schedulers"
where scheduler_id is null


