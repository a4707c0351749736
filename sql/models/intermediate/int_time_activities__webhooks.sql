-- The latest state of every time activity from its webhook events: the event with the newest
-- event time wins, whatever order the events arrived in. Deleted activities stay, flagged.

with

events as (

    select * from {{ ref('stg_webhooks__time_activities') }}
    where state_effect in ('upsert', 'delete') and time_activity_id is not null

),

latest as (

    select *
    from events
    {{ latest_event('time_activity_id') }}

),

event_counts as (

    select
        time_activity_id,
        count(*) as event_count
    from events
    group by time_activity_id

),

final as (

    select
        latest.time_activity_id,
        latest.user_id,
        latest.time_clock_id,
        latest.activity_type,
        latest.job_id,
        latest.scheduler_shift_id,
        latest.started_at,
        latest.ended_at,
        latest.is_auto_clock_out,
        latest.auto_clock_out_mode,
        latest.event_type as last_event_type,
        latest.event_at as last_event_at,
        event_counts.event_count,
        coalesce(latest.start_timezone, latest.end_timezone) as timezone,
        latest.state_effect = 'delete' as is_deleted,
        latest.ended_at is null and latest.state_effect <> 'delete' as is_open_punch,
        case
            when latest.ended_at is not null
                then round(epoch(latest.ended_at - latest.started_at) / 3600.0, 4)
        end as duration_hours

    from latest
    inner join event_counts on latest.time_activity_id = event_counts.time_activity_id

)

select * from final
