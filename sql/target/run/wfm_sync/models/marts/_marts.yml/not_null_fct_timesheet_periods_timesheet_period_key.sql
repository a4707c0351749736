
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select timesheet_period_key
from "warehouse"."marts"."fct_timesheet_periods"
where timesheet_period_key is null



  
  
      
    ) dbt_internal_test