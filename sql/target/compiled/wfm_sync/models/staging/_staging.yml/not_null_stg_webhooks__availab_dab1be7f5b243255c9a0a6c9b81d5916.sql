
    
    



select availability_event_key
from "warehouse"."staging"."stg_webhooks__availability_statuses"
where availability_event_key is null


