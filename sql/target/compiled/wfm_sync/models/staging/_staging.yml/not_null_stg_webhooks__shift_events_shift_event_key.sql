
    
    



select shift_event_key
from "warehouse"."staging"."stg_webhooks__shift_events"
where shift_event_key is null


