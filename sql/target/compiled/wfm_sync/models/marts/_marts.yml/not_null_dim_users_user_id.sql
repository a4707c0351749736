
    
    



select user_id
from "warehouse"."marts"."dim_users"
where user_id is null


