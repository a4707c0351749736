
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    

with all_values as (

    select
        state_effect as value_field,
        count(*) as n_records

    from "warehouse"."staging"."stg_webhooks__time_activities"
    group by state_effect

)

select *
from all_values
where value_field not in (
    'upsert','delete','request','declined'
)



  
  
      
    ) dbt_internal_test