-- User x availability interval, net of deletions, from both paths:
--   * the API's scheduler unavailabilities (stg_connecteam__scheduler_unavailabilities, the
--     sync's window), not deleted: availability_type 'unavailable'; an all-day one covers its
--     local day, a timed one its local start to end (an end not after the start ends the next
--     day), local to its timezone (times null when the timezone or a time is unreadable);
--   * the availability webhooks (stg_webhooks__availability_statuses): each status in its
--     latest state by event time; statuses whose latest event deleted them are left out, and so
--     is an API unavailability a webhook deleted (by id).
-- A webhook status the API also lists (the same id, or an unavailable status of the same user,
-- start and end) is one interval: the API's row is kept, so it is counted once.

{%- set time_pattern = '([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?' %}

with

items as (

    select * from {{ ref('stg_webhooks__availability_statuses') }}
    where user_id is not null

),

latest as (

    {{ latest_event('items', 'availability_key') }}

),

webhook_deleted as (

    select availability_status_id from latest
    where change_type = 'deleted' and availability_status_id is not null

),

clocks as (

    -- a time that is not HH:MM[:SS] reads as null (the CASE keeps the cast from seeing it)
    select
        *,
        case
            when {{ matches_fully('start_time', time_pattern) }} then cast(start_time as time)
        end as start_clock,
        case
            when {{ matches_fully('end_time', time_pattern) }} then cast(end_time as time)
        end as end_clock
    from {{ ref('stg_connecteam__scheduler_unavailabilities') }}
    where user_id is not null

),

unavailabilities as (

    select
        *,
        case
            when is_all_day then unavailability_date + cast('00:00:00' as time)
            else unavailability_date + start_clock
        end as local_start,
        case
            when is_all_day then unavailability_date + cast('00:00:00' as time) + interval '1 day'
            when end_clock <= start_clock then unavailability_date + end_clock + interval '1 day'
            else unavailability_date + end_clock
        end as local_end
    from clocks

),

from_api as (

    select
        unavailability_key as availability_key,
        unavailability_id as availability_status_id,
        user_id,
        scheduler_id,
        'unavailable' as availability_type,
        local_start at time zone timezone as starts_at,
        local_end at time zone timezone as ends_at,
        timezone,
        is_all_day,
        note,
        cast(null as boolean) as is_admin_action,
        cast(null as timestamptz) as recorded_at,
        'api' as data_source
    from unavailabilities
    where
        not is_deleted
        and unavailability_id not in (
            select webhook_deleted.availability_status_id from webhook_deleted
        )

),

from_webhooks as (

    select
        latest.availability_key,
        latest.availability_status_id,
        latest.user_id,
        latest.scheduler_id,
        latest.availability_type,
        latest.starts_at,
        latest.ends_at,
        latest.timezone,
        latest.is_all_day,
        latest.note,
        latest.is_admin_action,
        latest.event_at as recorded_at,
        'webhooks' as data_source
    from latest
    where
        latest.change_type = 'created'
        and not exists (
            select 1 from unavailabilities as api
            where
                api.unavailability_id = latest.availability_status_id
                or (
                    latest.availability_type = 'unavailable'
                    and api.user_id = latest.user_id
                    and api.local_start at time zone api.timezone = latest.starts_at
                    and api.local_end at time zone api.timezone = latest.ends_at
                )
        )

),

unioned as (

    select * from from_api
    union all
    select * from from_webhooks

),

final as (

    select
        *,
        {{ round_to(epoch_seconds('ends_at - starts_at') ~ ' / 3600.0', 4) }} as duration_hours
    from unioned

)

select * from final
