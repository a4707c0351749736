
    
    



select user_id
from "warehouse"."staging"."stg_connecteam__users"
where user_id is null


