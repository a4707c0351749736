
    
    

with all_values as (

    select
        availability_type as value_field,
        count(*) as n_records

    from "warehouse"."staging"."stg_webhooks__availability_statuses"
    group by availability_type

)

select *
from all_values
where value_field not in (
    'available','preferToWork','unavailable','absence'
)


