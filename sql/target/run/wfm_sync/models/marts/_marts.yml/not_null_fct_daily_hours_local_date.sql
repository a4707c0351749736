
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select local_date
from "warehouse"."marts"."fct_daily_hours"
where local_date is null



  
  
      
    ) dbt_internal_test