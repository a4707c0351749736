
    
    

with all_values as (

    select
        change as value_field,
        count(*) as n_records

    from "warehouse"."staging"."stg_webhooks__availability_statuses"
    group by change

)

select *
from all_values
where value_field not in (
    'created','deleted'
)


