
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select user_event_key
from "warehouse"."staging"."stg_webhooks__user_events"
where user_event_key is null



  
  
      
    ) dbt_internal_test