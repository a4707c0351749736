
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select daily_hours_key
from "warehouse"."marts"."fct_daily_hours"
where daily_hours_key is null



  
  
      
    ) dbt_internal_test