
    
    

with all_values as (

    select
        family as value_field,
        count(*) as n_records

    from "warehouse"."webhooks"."events"
    group by family

)

select *
from all_values
where value_field not in (
    'time_activity','timesheet_period','availability','shift','user','task','form','chat','unknown'
)


