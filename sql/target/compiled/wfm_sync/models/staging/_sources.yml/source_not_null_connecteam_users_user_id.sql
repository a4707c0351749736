
    
    



select user_id
from "warehouse"."connecteam"."users"
where user_id is null


