
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select availability_type
from "warehouse"."staging"."stg_webhooks__availability_statuses"
where availability_type is null



  
  
      
    ) dbt_internal_test