
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    

select
    event_key as unique_field,
    count(*) as n_records

from "warehouse"."webhooks"."events"
where event_key is not null
group by event_key
having count(*) > 1



  
  
      
    ) dbt_internal_test