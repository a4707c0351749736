
    
    



select timesheet_period_key
from "warehouse"."marts"."fct_timesheet_periods"
where timesheet_period_key is null


