
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select scheduler_id
from "warehouse"."connecteam"."shifts"
where scheduler_id is null



  
  
      
    ) dbt_internal_test