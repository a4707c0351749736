
    
    



select time_activity_id
from "warehouse"."marts"."fct_time_activities"
where time_activity_id is null


