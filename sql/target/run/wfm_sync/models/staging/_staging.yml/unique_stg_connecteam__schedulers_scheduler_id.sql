
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    

select
    scheduler_id as unique_field,
    count(*) as n_records

from "warehouse"."staging"."stg_connecteam__schedulers"
where scheduler_id is not null
group by scheduler_id
having count(*) > 1



  
  
      
    ) dbt_internal_test