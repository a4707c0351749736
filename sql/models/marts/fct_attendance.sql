-- One row per published shift assignment that has started, matched to the user's shift punches,
-- plus one row per shift punch that matched no assignment (is_unscheduled).
-- A punch matches the assignment of the same user whose shift it names (scheduler_shift_id =
-- the shift's base id); a punch naming no shift, or a shift that is none of the user's
-- published assignments, matches the same user's assignment its time overlaps (the one
-- starting nearest to the punch when several do). An assignment may hold several punches (a
-- shift split by a mobile break): the first clock-in and the last clock-out count, and its
-- worked hours are the punches' by the provider's rule (int_time_activities__paid_time).
-- Rebuilt in full on every build: a punch of any age may be edited, moved or deleted.

{{ config(materialized='table') }}

with

assignments as (

    select
        shift_assignment_key,
        scheduler_id,
        shift_id,
        user_id,
        job_id,
        starts_at,
        ends_at,
        timezone,
        local_date,
        scheduled_hours
    from {{ ref('int_shift_assignments__detailed') }}
    where
        not is_deleted
        and is_published
        and user_id is not null
        and starts_at is not null
        and ends_at is not null
        and starts_at <= {{ as_of_time() }}

),

punches as (

    select
        time_activity_id,
        user_id,
        scheduler_shift_id,
        job_id,
        started_at,
        ended_at,
        timezone,
        -- a punch a clock splits at midnight is a row per day: its hours are their sum
        sum(worked_hours) as worked_hours
    from {{ ref('int_time_activities__paid_time') }}
    where activity_type = 'shift'
    group by
        time_activity_id, user_id, scheduler_shift_id, job_id, started_at, ended_at, timezone

),

named as (

    select
        punches.time_activity_id,
        assignments.shift_assignment_key,
        'scheduler_shift_id' as matched_by,
        abs(
            {{ epoch_seconds('punches.started_at') }} - {{ epoch_seconds('assignments.starts_at') }}
        ) as distance_seconds
    from punches
    inner join assignments
        on
            punches.user_id = assignments.user_id
            and punches.scheduler_shift_id = assignments.shift_id

),

overlapping as (

    select
        punches.time_activity_id,
        assignments.shift_assignment_key,
        'overlap' as matched_by,
        abs(
            {{ epoch_seconds('punches.started_at') }} - {{ epoch_seconds('assignments.starts_at') }}
        ) as distance_seconds
    from punches
    inner join assignments
        on
            punches.user_id = assignments.user_id
            and punches.started_at < assignments.ends_at
            and coalesce(punches.ended_at, punches.started_at) >= assignments.starts_at
    where punches.time_activity_id not in (select named.time_activity_id from named)

),

candidates as (

    select * from named
    union all
    select * from overlapping

),

matches as (

    {{ first_row_per(
        'candidates', 'time_activity_id', 'distance_seconds, shift_assignment_key'
    ) }}

),

per_assignment as (

    select
        matches.shift_assignment_key,
        min(punches.started_at) as clock_in_at,
        max(punches.ended_at) as clock_out_at,
        bool_or(punches.ended_at is null) as has_open_punch,
        count(*) as punch_count,
        {{ round_to('sum(punches.worked_hours)', 4) }} as worked_hours,
        min(matches.matched_by) as matched_by
    from matches
    inner join punches on matches.time_activity_id = punches.time_activity_id
    group by matches.shift_assignment_key

),

scheduled as (

    select
        assignments.shift_assignment_key as attendance_key,
        assignments.shift_assignment_key,
        cast(null as varchar) as time_activity_id,
        assignments.user_id,
        assignments.scheduler_id,
        assignments.shift_id,
        assignments.job_id,
        assignments.starts_at,
        assignments.ends_at,
        assignments.timezone,
        assignments.local_date,
        assignments.scheduled_hours,
        per_assignment.clock_in_at,
        per_assignment.clock_out_at,
        per_assignment.matched_by,
        false as is_unscheduled,
        coalesce(per_assignment.punch_count, 0) as punch_count,
        coalesce(per_assignment.worked_hours, 0) as worked_hours,
        {{ round_to(
            epoch_seconds('per_assignment.clock_in_at - assignments.starts_at') ~ ' / 60', 1
        ) }} as minutes_after_start,
        case
            when not per_assignment.has_open_punch
                then {{ round_to(
                    epoch_seconds('assignments.ends_at - per_assignment.clock_out_at') ~ ' / 60',
                    1
                ) }}
        end as minutes_before_end,
        per_assignment.shift_assignment_key is null
        and assignments.ends_at <= {{ as_of_time() }} as no_show,
        assignments.ends_at <= {{ as_of_time() }}
        and not coalesce(per_assignment.has_open_punch, false) as has_ended
    from assignments
    left join per_assignment
        on assignments.shift_assignment_key = per_assignment.shift_assignment_key

),

unscheduled as (

    select
        'unscheduled/' || punches.time_activity_id as attendance_key,
        cast(null as varchar) as shift_assignment_key,
        punches.time_activity_id,
        punches.user_id,
        cast(null as bigint) as scheduler_id,
        cast(null as varchar) as shift_id,
        punches.job_id,
        cast(null as timestamptz) as starts_at,
        cast(null as timestamptz) as ends_at,
        punches.timezone,
        {{ local_date('punches.started_at', 'punches.timezone') }} as local_date,
        cast(null as float8) as scheduled_hours,
        punches.started_at as clock_in_at,
        punches.ended_at as clock_out_at,
        cast(null as varchar) as matched_by,
        true as is_unscheduled,
        1 as punch_count,
        punches.worked_hours,
        cast(null as float8) as minutes_after_start,
        cast(null as float8) as minutes_before_end,
        false as no_show,
        punches.ended_at is not null as has_ended
    from punches
    left join matches on punches.time_activity_id = matches.time_activity_id
    where matches.time_activity_id is null

),

unioned as (

    select * from scheduled
    union all
    select * from unscheduled

),

final as (

    select
        attendance_key,
        shift_assignment_key,
        time_activity_id,
        user_id,
        scheduler_id,
        shift_id,
        job_id,
        starts_at,
        ends_at,
        timezone,
        local_date,
        scheduled_hours,
        clock_in_at,
        clock_out_at,
        punch_count,
        worked_hours,
        matched_by,
        no_show,
        has_ended,
        is_unscheduled,
        case
            when minutes_after_start > {{ var('attendance_grace_minutes') }}
                then minutes_after_start
            when minutes_after_start is not null then 0
        end as late_minutes,
        case
            when minutes_before_end > {{ var('attendance_grace_minutes') }}
                then minutes_before_end
            when minutes_before_end is not null then 0
        end as early_leave_minutes,
        coalesce(minutes_after_start > {{ var('attendance_grace_minutes') }}, false) as is_late
    from unioned

)

select * from final
