
    
    



select user_id
from "warehouse"."marts"."fct_time_activities"
where user_id is null


