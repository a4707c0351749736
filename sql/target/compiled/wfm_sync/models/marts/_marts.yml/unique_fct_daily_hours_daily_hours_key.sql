
    
    

select
    daily_hours_key as unique_field,
    count(*) as n_records

from "warehouse"."marts"."fct_daily_hours"
where daily_hours_key is not null
group by daily_hours_key
having count(*) > 1


