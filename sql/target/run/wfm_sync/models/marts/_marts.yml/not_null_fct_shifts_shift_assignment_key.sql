
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    



select shift_assignment_key
from "warehouse"."marts"."fct_shifts"
where shift_assignment_key is null



  
  
      
    ) dbt_internal_test