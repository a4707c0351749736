
    
    



select event_key
from "warehouse"."staging"."stg_webhooks__time_activities"
where event_key is null


