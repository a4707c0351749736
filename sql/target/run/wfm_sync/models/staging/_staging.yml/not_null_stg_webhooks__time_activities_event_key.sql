
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select event_key
from "warehouse"."staging"."stg_webhooks__time_activities"
where event_key is null



  
  
      
    ) dbt_internal_test