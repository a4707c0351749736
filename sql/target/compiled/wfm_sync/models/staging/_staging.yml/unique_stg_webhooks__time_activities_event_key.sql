
    
    

select
    event_key as unique_field,
    count(*) as n_records

from "warehouse"."staging"."stg_webhooks__time_activities"
where event_key is not null
group by event_key
having count(*) > 1


