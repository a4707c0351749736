-- One row per live shift punch (fct_time_activities) and local day it covers: the part of the
-- punch between that day's local midnights, in the punch's own timezone (DST included). A punch
-- within one day, an open punch, one whose day is unknown and one spanning more than
-- var('punch_split_max_days') days is one part, its start's day, all of it. The parts are the
-- two ways a clock can count an overnight punch (the spec's timesheet endDate: hours past
-- midnight on the next day "if it has been configured in the time clock settings"):
-- int_time_clocks__overnight_split tells which a clock does, and int_time_activities__paid_time
-- counts the parts of a clock that splits on their own days.

with

punches as (

    select
        time_activity_id,
        user_id,
        time_clock_id,
        started_at,
        ended_at,
        timezone,
        duration_hours,
        {{ local_date('started_at', 'timezone') }} as start_date,
        case
            when ended_at > started_at
                then {{ local_date("ended_at - interval '1 microsecond'", 'timezone') }}
        end as end_date
    from {{ ref('fct_time_activities') }}
    where
        not is_deleted
        and user_id is not null
        and started_at is not null
        and activity_type = 'shift'

),

spans as (

    select
        *,
        case
            when
                end_date - start_date + 1 between 2 and {{ var('punch_split_max_days') }}
                then end_date - start_date + 1
            else 1
        end as part_count
    from punches

),

days as (

    select
        spans.*,
        spans.start_date + cast(day_offsets.day_offset as integer) as local_date,
        day_offsets.day_offset = 0 as is_first_part
    from spans
    cross join lateral generate_series(0, spans.part_count - 1) as day_offsets (day_offset)

),

final as (

    select
        time_activity_id,
        user_id,
        time_clock_id,
        timezone,
        started_at,
        ended_at,
        start_date,
        local_date,
        is_first_part,
        part_count,
        case
            when part_count = 1 then started_at
            else greatest(started_at, {{ local_midnight('local_date', 'timezone') }})
        end as part_started_at,
        case
            when part_count = 1 then ended_at
            else least(ended_at, {{ local_midnight('local_date + 1', 'timezone') }})
        end as part_ended_at,
        case
            when part_count = 1 then coalesce(duration_hours, 0)
            else {{ epoch_seconds(
                'least(ended_at, ' ~ local_midnight('local_date + 1', 'timezone') ~ ')'
                ~ ' - greatest(started_at, ' ~ local_midnight('local_date', 'timezone') ~ ')'
            ) }} / 3600.0
        end as part_hours
    from days

)

select * from final
