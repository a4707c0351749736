-- The last approved state of every time activity from its webhook events: among the events
-- that set an activity's state (state_effect upsert or delete), the one with the newest event
-- time wins, whatever order the events arrived in. A user's add/edit/delete request (request)
-- is pending and changes nothing; an admin's decline of a request (declined) leaves the
-- activity as it was, so neither is read: a declined edit keeps the times approved before it,
-- a declined delete keeps the activity. Deleted activities stay, flagged.

with

events as (

    select * from {{ ref('stg_webhooks__time_activities') }}
    where state_effect in ('upsert', 'delete') and time_activity_id is not null

),

latest as (

    {{ latest_event('events', 'time_activity_id') }}

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
        latest.sub_job_id,
        latest.manual_break_id,
        latest.scheduler_shift_id,
        latest.started_at,
        latest.ended_at,
        latest.is_auto_clock_out,
        latest.auto_clock_out_mode,
        latest.duration_value,
        latest.duration_units,
        latest.event_type as last_event_type,
        latest.event_at as last_event_at,
        event_counts.event_count,
        coalesce(latest.start_timezone, latest.end_timezone) as timezone,
        latest.state_effect = 'delete' as is_deleted,
        latest.ended_at is null
        and latest.state_effect <> 'delete'
        and coalesce(latest.activity_type, '') <> 'time_off' as is_open_punch,
        {{ activity_hours(
            'latest.activity_type', 'latest.started_at', 'latest.ended_at',
            'latest.duration_value', 'latest.duration_units'
        ) }} as duration_hours

    from latest
    inner join event_counts on latest.time_activity_id = event_counts.time_activity_id

)

select * from final
