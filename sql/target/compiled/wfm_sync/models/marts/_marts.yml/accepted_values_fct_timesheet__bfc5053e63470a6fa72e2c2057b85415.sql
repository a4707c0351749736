
    
    

with all_values as (

    select
        status as value_field,
        count(*) as n_records

    from "warehouse"."marts"."fct_timesheet_periods"
    group by status

)

select *
from all_values
where value_field not in (
    'open','submitted','approved'
)


