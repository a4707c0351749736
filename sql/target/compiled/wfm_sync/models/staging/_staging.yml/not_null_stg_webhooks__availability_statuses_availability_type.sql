
    
    



select availability_type
from "warehouse"."staging"."stg_webhooks__availability_statuses"
where availability_type is null


