-- User x local day: scheduled hours (live shift assignments) next to worked hours (shift
-- activities minus manual breaks, deleted activities excluded) and the variance. Each shift and
-- punch counts on the local day of its start, in its own timezone. Activities come from
-- fct_time_activities (the API's version where it covers them, webhooks for the most recent);
-- hours_source says which fed the day: api, webhooks, mixed, or none (scheduled only).

with

shifts as (

    select
        user_id,
        scheduled_hours,
        try_cast(starts_at at time zone timezone as date) as local_date
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
        try_cast(started_at at time zone timezone as date) as local_date
    from {{ ref('fct_time_activities') }}
    where not is_deleted and user_id is not null

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
                when 'shift' then coalesce(duration_hours, 0)
                when 'manual_break' then -coalesce(duration_hours, 0)
                else 0
            end
        ) as worked_hours,
        sum(case when activity_type = 'time_off' then coalesce(duration_hours, 0) else 0 end)
            as time_off_hours,
        count(*) filter (where activity_type = 'shift') as punch_count,
        count(*) filter (where is_open_punch) as open_punch_count,
        count(*) filter (where data_source = 'api') as api_activity_count,
        count(*) filter (where data_source = 'webhooks') as webhook_activity_count
    from activities
    group by user_id, local_date

),

joined as (

    select
        coalesce(scheduled.user_id, worked.user_id) as user_id,
        coalesce(scheduled.local_date, worked.local_date) as local_date,
        round(coalesce(scheduled.scheduled_hours, 0), 4) as scheduled_hours,
        round(coalesce(worked.worked_hours, 0), 4) as worked_hours,
        round(coalesce(worked.time_off_hours, 0), 4) as time_off_hours,
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
        round(worked_hours - scheduled_hours, 4) as variance_hours,
        {{ readable_key(['user_id', 'local_date']) }} as daily_hours_key
    from joined

)

select * from final
