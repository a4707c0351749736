
    
    

select
    time_activity_id as unique_field,
    count(*) as n_records

from "warehouse"."marts"."fct_time_activities"
where time_activity_id is not null
group by time_activity_id
having count(*) > 1


