
    
    



select event_key
from "warehouse"."webhooks"."events"
where event_key is null


