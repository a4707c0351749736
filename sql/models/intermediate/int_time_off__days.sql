-- One row per live time off (fct_time_activities, activity_type time_off) and local day it
-- covers, with its share of the hours: its hours (duration_hours) spread evenly over its local
-- days, from its start's day through its end's day (an end at local midnight ends the day
-- before), or, without an end, ceil(hours / var('time_off_hours_per_day')) days from its start
-- (at least one). More days than var('time_off_max_request_days'), or an unknown start day,
-- put the whole time off on one row with local_date null.

with

activities as (

    select
        time_activity_id,
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
    where not is_deleted and user_id is not null and activity_type = 'time_off'

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

final as (

    select
        placed.time_activity_id,
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
        time_activity_id,
        user_id,
        activity_type,
        is_open_punch,
        data_source,
        cast(null as date) as local_date,
        duration_hours as hours
    from placed
    where not has_listable_days

)

select * from final
