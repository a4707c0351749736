
    
    



select scheduler_id
from "warehouse"."connecteam"."schedulers"
where scheduler_id is null


