-- User x local day: scheduled hours (live shift assignments) next to worked hours (shift
-- activities minus manual breaks, deleted activities excluded), time-off hours and the variance.
-- Each shift and punch counts on the local day of its start, in its own timezone. A time off's
-- hours (its duration, fct_time_activities.duration_hours) are spread evenly over its local
-- days: from its start's day through its end's day (an end at local midnight ends the day
-- before), or, without an end, ceil(hours / var('time_off_hours_per_day')) days from its start
-- (at least one); more days than var('time_off_max_request_days') (or an unknown start day)
-- put the whole time off on the row with local_date null. Activities come from
-- fct_time_activities (the API's version where it covers them, webhooks for the most recent);
-- hours_source says which fed the day: api, webhooks, mixed, or none (scheduled only).

with

shifts as (

    select
        user_id,
        scheduled_hours,
        {{ local_date('starts_at', 'timezone') }} as local_date
    from {{ ref('fct_shifts') }}
    where not is_deleted and user_id is not null

),

activities as (

    select
        user_id,
        activity_type,
        duration_hours,
        is_open_punch,
        data_source,
        started_at,
        ended_at,
        timezone,
        {{ local_date('started_at', 'timezone') }} as local_date
    from {{ ref('fct_time_activities') }}
    where not is_deleted and user_id is not null

),

spans as (

    select
        *,
        -- a time off with an end: its local days from the start's through the end's
        case
            when ended_at > started_at
                then
                    {{ local_date("ended_at - interval '1 microsecond'", 'timezone') }}
                    - local_date + 1
        end as ended_day_count,
        -- without one: the days its hours fill (null, not listable, beyond 64 bits)
        {{ try_cast(
            'ceil(' ~ round_to(
                'coalesce(duration_hours, 0) / ' ~ var('time_off_hours_per_day'), 6
            ) ~ ')',
            'bigint'
        ) }} as filled_day_count
    from activities

),

listable as (

    select
        *,
        case
            when coalesce(activity_type, '') <> 'time_off' then 1
            when ended_day_count is not null then ended_day_count
            when filled_day_count < 1 then 1  -- no (or negative) hours: its start day
            else filled_day_count
        end as day_count
    from spans

),

placed as (

    select
        *,
        local_date is not null
        and coalesce(day_count between 1 and {{ var('time_off_max_request_days') }}, false)
            as has_listable_days
    from listable

),

activity_days as (

    select
        placed.user_id,
        placed.activity_type,
        placed.is_open_punch,
        placed.data_source,
        placed.local_date + cast(day_offsets.day_offset as integer) as local_date,
        placed.duration_hours / placed.day_count as hours
    from placed
    cross join lateral generate_series(0, placed.day_count - 1) as day_offsets (day_offset)
    where placed.has_listable_days

    union all

    select
        user_id,
        activity_type,
        is_open_punch,
        data_source,
        cast(null as date) as local_date,
        duration_hours as hours
    from placed
    where not has_listable_days

),

scheduled as (

    select
        user_id,
        local_date,
        sum(scheduled_hours) as scheduled_hours,
        count(*) as shift_count
    from shifts
    group by user_id, local_date

),

worked as (

    select
        user_id,
        local_date,
        sum(
            case activity_type
                when 'shift' then coalesce(hours, 0)
                when 'manual_break' then -coalesce(hours, 0)
                else 0
            end
        ) as worked_hours,
        sum(case when activity_type = 'time_off' then coalesce(hours, 0) else 0 end)
            as time_off_hours,
        count(*) filter (where activity_type = 'shift') as punch_count,
        count(*) filter (where is_open_punch) as open_punch_count,
        count(*) filter (where data_source = 'api') as api_activity_count,
        count(*) filter (where data_source = 'webhooks') as webhook_activity_count
    from activity_days
    group by user_id, local_date

),

joined as (

    select
        coalesce(scheduled.user_id, worked.user_id) as user_id,
        coalesce(scheduled.local_date, worked.local_date) as local_date,
        {{ round_to('coalesce(scheduled.scheduled_hours, 0)', 4) }} as scheduled_hours,
        {{ round_to('coalesce(worked.worked_hours, 0)', 4) }} as worked_hours,
        {{ round_to('coalesce(worked.time_off_hours, 0)', 4) }} as time_off_hours,
        coalesce(scheduled.shift_count, 0) as shift_count,
        coalesce(worked.punch_count, 0) as punch_count,
        coalesce(worked.open_punch_count, 0) as open_punch_count,
        case
            when worked.api_activity_count > 0 and worked.webhook_activity_count > 0 then 'mixed'
            when worked.api_activity_count > 0 then 'api'
            when worked.webhook_activity_count > 0 then 'webhooks'
            else 'none'
        end as hours_source
    from scheduled
    full outer join worked
        on
            scheduled.user_id = worked.user_id
            -- an unknown day (null) joins the same user's unknown day: one row, not two
            and scheduled.local_date is not distinct from worked.local_date

),

final as (

    select
        *,
        {{ round_to('worked_hours - scheduled_hours', 4) }} as variance_hours,
        {{ readable_key(['user_id', 'local_date']) }} as daily_hours_key
    from joined

)

select * from final
