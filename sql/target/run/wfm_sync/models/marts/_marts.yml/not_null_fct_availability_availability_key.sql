
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select availability_key
from "warehouse"."marts"."fct_availability"
where availability_key is null



  
  
      
    ) dbt_internal_test