
    
    



select scheduler_id
from "warehouse"."connecteam"."shifts"
where scheduler_id is null


