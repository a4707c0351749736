
    
    

select
    timesheet_period_key as unique_field,
    count(*) as n_records

from "warehouse"."marts"."fct_timesheet_periods"
where timesheet_period_key is not null
group by timesheet_period_key
having count(*) > 1


