
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    

select
    availability_key as unique_field,
    count(*) as n_records

from "warehouse"."marts"."fct_availability"
where availability_key is not null
group by availability_key
having count(*) > 1



  
  
      
    ) dbt_internal_test