
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select availability_event_key
from "warehouse"."staging"."stg_webhooks__availability_statuses"
where availability_event_key is null



  
  
      
    ) dbt_internal_test