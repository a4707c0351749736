-- User x availability status interval, net of deletions: each status in its latest state by
-- event time; statuses whose latest event deleted them are left out.

with

items as (

    select * from {{ ref('stg_webhooks__availability_statuses') }}
    where user_id is not null

),

latest as (

    {{ latest_event('items', 'availability_key') }}

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
        {{ round_to(epoch_seconds('ends_at - starts_at') ~ ' / 3600.0', 4) }} as duration_hours

    from latest
    where change_type = 'created'

)

select * from final
