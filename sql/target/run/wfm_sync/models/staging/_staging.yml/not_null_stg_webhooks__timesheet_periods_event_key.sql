
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select event_key
from "warehouse"."staging"."stg_webhooks__timesheet_periods"
where event_key is null



  
  
      
    ) dbt_internal_test