
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    

select
    user_custom_field_key as unique_field,
    count(*) as n_records

from "warehouse"."staging"."stg_connecteam__user_custom_fields"
where user_custom_field_key is not null
group by user_custom_field_key
having count(*) > 1



  
  
      
    ) dbt_internal_test