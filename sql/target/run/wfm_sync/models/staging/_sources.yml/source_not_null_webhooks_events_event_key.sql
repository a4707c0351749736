
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select event_key
from "warehouse"."webhooks"."events"
where event_key is null



  
  
      
    ) dbt_internal_test