
    

    create  table
      "warehouse"."marts"."fct_availability__dbt_tmp"
  
    
    as (
      -- User x availability status interval, net of deletions: each status in its latest state by
-- event time; statuses whose latest event deleted them are left out.

with

items as (

    select * from "warehouse"."staging"."stg_webhooks__availability_statuses"
    where user_id is not null

),

latest as (

    select *
    from items
    qualify row_number() over (
        partition by availability_key order by event_at desc, received_at desc, event_key desc
    ) = 1

),

final as (

    select
        availability_key,
        availability_status_id,
        user_id,
        scheduler_id,
        availability_type,
        starts_at,
        ends_at,
        timezone,
        is_all_day,
        note,
        is_admin_action,
        event_at as recorded_at,
        round(epoch(ends_at - starts_at) / 3600.0, 4) as duration_hours

    from latest
    where change_type = 'created'

)

select * from final
    );
    
  