
    
    



select family
from "warehouse"."webhooks"."events"
where family is null


