
    
    

select
    shift_event_key as unique_field,
    count(*) as n_records

from "warehouse"."staging"."stg_webhooks__shift_events"
where shift_event_key is not null
group by shift_event_key
having count(*) > 1


