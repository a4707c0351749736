-- Time clock x user x timesheet period: the latest status (by event time), when it was
-- submitted and approved, the approval lag, and the days an admin locked (net of unlocks). A
-- user's periods on two time clocks are two rows; events naming no clock form their own.

with

events as (

    select * from {{ ref('stg_webhooks__timesheet_periods') }}
    where user_id is not null and period_start is not null

),

latest_status as (

    select
        time_clock_id,
        user_id,
        period_start,
        resulting_status as status,
        event_at as status_changed_at
    from (
        {{ latest_event(
            'events', 'time_clock_id, user_id, period_start', where='resulting_status is not null'
        ) }}
    ) as latest

),

periods as (

    select
        time_clock_id,
        user_id,
        period_start,
        max(period_end) as period_end,
        min(event_at) filter (where event_type = 'user_timesheet_submitted') as first_submitted_at,
        max(event_at) filter (where event_type = 'user_timesheet_approved') as approved_at
    from events
    group by time_clock_id, user_id, period_start

),

submitted_before_approval as (

    select
        events.time_clock_id,
        events.user_id,
        events.period_start,
        max(events.event_at) as submitted_at
    from events
    inner join periods
        on
            events.time_clock_id is not distinct from periods.time_clock_id
            and events.user_id = periods.user_id
            and events.period_start = periods.period_start
    where
        events.event_type = 'user_timesheet_submitted'
        and (periods.approved_at is null or events.event_at <= periods.approved_at)
    group by events.time_clock_id, events.user_id, events.period_start

),

day_locks as (

    select
        time_clock_id,
        user_id,
        period_start,
        locked_date,
        event_type
    from (
        {{ latest_event(
            'events', 'time_clock_id, user_id, period_start, locked_date',
            where='locked_date is not null'
        ) }}
    ) as latest

),

locked_days as (

    select
        time_clock_id,
        user_id,
        period_start,
        count(*) filter (where event_type = 'admin_day_locked') as locked_day_count
    from day_locks
    group by time_clock_id, user_id, period_start

),

final as (

    select
        periods.time_clock_id,
        periods.user_id,
        periods.period_start,
        periods.period_end,
        latest_status.status_changed_at,
        periods.first_submitted_at,
        submitted_before_approval.submitted_at,
        coalesce(latest_status.status, 'open') as status,
        case when latest_status.status = 'approved' then periods.approved_at end as approved_at,
        case
            when latest_status.status = 'approved'
                then {{ round_to(
                    epoch_seconds('periods.approved_at - submitted_before_approval.submitted_at')
                    ~ ' / 3600.0',
                    4
                ) }}
        end as approval_lag_hours,
        coalesce(locked_days.locked_day_count, 0) as locked_day_count,
        {{ readable_key([
            "coalesce(cast(periods.time_clock_id as varchar), 'no-clock')",
            'periods.user_id',
            'periods.period_start',
        ]) }} as timesheet_period_key

    from periods
    left join latest_status
        on
            periods.time_clock_id is not distinct from latest_status.time_clock_id
            and periods.user_id = latest_status.user_id
            and periods.period_start = latest_status.period_start
    left join submitted_before_approval
        on
            periods.time_clock_id is not distinct from submitted_before_approval.time_clock_id
            and periods.user_id = submitted_before_approval.user_id
            and periods.period_start = submitted_before_approval.period_start
    left join locked_days
        on
            periods.time_clock_id is not distinct from locked_days.time_clock_id
            and periods.user_id = locked_days.user_id
            and periods.period_start = locked_days.period_start

)

select * from final
