
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    

select
    shift_assignment_key as unique_field,
    count(*) as n_records

from "warehouse"."staging"."stg_connecteam__shifts"
where shift_assignment_key is not null
group by shift_assignment_key
having count(*) > 1



  
  
      
    ) dbt_internal_test