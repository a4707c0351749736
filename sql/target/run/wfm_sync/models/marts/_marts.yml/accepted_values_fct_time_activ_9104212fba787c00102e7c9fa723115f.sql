
    
    select
      count(*) as failures,
      count(*) != 0 as should_warn,
      count(*) != 0 as should_error
    from (
      
    
  
    
    

with all_values as (

    select
        auto_clock_out_mode as value_field,
        count(*) as n_records

    from "warehouse"."marts"."fct_time_activities"
    group by auto_clock_out_mode

)

select *
from all_values
where value_field not in (
    'dailyLimit','hourLimit','schedulerShiftEnded','geofenceExit','disabledGps','disabledGpsPermission','breakAutoEnd'
)



  
  
      
    ) dbt_internal_test