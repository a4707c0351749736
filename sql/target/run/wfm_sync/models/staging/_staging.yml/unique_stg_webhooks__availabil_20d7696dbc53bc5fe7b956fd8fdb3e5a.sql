
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    

select
    availability_event_key as unique_field,
    count(*) as n_records

from "warehouse"."staging"."stg_webhooks__availability_statuses"
where availability_event_key is not null
group by availability_event_key
having count(*) > 1



  
  
      
    ) dbt_internal_test