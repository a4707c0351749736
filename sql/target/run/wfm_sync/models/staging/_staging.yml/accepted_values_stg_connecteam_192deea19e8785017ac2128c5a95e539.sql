
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    

with all_values as (

    select
        custom_field_type as value_field,
        count(*) as n_records

    from "warehouse"."staging"."stg_connecteam__user_custom_fields"
    group by custom_field_type

)

select *
from all_values
where value_field not in (
    'email','date','phone','number','str','dropdown','file','directManager','birthday','link','location'
)



  
  
      
    ) dbt_internal_test