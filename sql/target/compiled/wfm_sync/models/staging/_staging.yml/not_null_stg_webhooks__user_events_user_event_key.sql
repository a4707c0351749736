
    
    



select user_event_key
from "warehouse"."staging"."stg_webhooks__user_events"
where user_event_key is null


