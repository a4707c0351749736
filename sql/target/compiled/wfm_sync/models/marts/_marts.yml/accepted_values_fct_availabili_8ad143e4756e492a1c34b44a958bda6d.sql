
    
    

with all_values as (

    select
        availability_type as value_field,
        count(*) as n_records

    from "warehouse"."marts"."fct_availability"
    group by availability_type

)

select *
from all_values
where value_field not in (
    'available','preferToWork','unavailable','absence'
)


