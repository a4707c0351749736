
    
    



select user_id
from "warehouse"."marts"."fct_daily_hours"
where user_id is null


