
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select user_custom_field_key
from "warehouse"."staging"."stg_connecteam__user_custom_fields"
where user_custom_field_key is null



  
  
      
    ) dbt_internal_test