
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select family
from "warehouse"."webhooks"."events"
where family is null



  
  
      
    ) dbt_internal_test