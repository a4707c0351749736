
    
    



select event_key
from "warehouse"."staging"."stg_webhooks__timesheet_periods"
where event_key is null


