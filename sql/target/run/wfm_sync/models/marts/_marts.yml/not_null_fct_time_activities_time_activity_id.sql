
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select time_activity_id
from "warehouse"."marts"."fct_time_activities"
where time_activity_id is null



  
  
      
    ) dbt_internal_test