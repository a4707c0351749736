
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    

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



  
  
      
    ) dbt_internal_test