-- One row per live shift punch and manual break (fct_time_activities) with the hours it adds to
-- its user's day, by the provider's rule (the spec: ManualBreakClockInResponse.isSwitchFromShift,
-- ManualBreakClockOutRequest.isResumeShift, TimeActivitiesCreateRequestList
-- .isSplitShiftOnManualBreak, ManualBreakResponse.isPaid):
--   * a shift punch is worked time; a manual break is its own interval. A mobile break closes
--     the open shift and the return opens a new one, so it lies between two punches and takes
--     nothing from them; a break created through the API may lie inside a punch, and only the
--     time a break overlaps a punch is taken from that punch (never below zero);
--   * a break's hours are paid or unpaid by its policy (stg_connecteam__manual_breaks: the
--     break's time clock and manualBreakId); a break whose policy is not known counts in
--     unknown_policy_break_hours, neither paid nor unpaid, and break_policy_known is false;
--   * paid_hours = worked_hours + paid_break_hours.
-- A punch counts on the local day of its start, except on a clock that counts overnight hours
-- on the next day (int_time_clocks__overnight_split): there each local day's part of the punch
-- (int_time_activities__day_parts) is a row of its own on that day (is_split_at_midnight;
-- paid_time_key names the day), the provider's rule for such a clock. A break counts on the day
-- of the punch part it overlaps (the earliest starting one; its job too), else on its own
-- start's day, so a break after midnight inside an overnight punch never makes a day negative.
-- Overlaps are taken within one user and time clock (a webhook without timeClockId matches any
-- of the user's clocks).
-- Two shift punches of one user that overlap (any clocks: nobody works twice at once) count
-- their union: the part of a punch an earlier-starting punch of the user already covers is taken
-- from it (overlapping_punch_hours; every earlier punch starts before it, so what they cover is
-- one stretch from its start; parts of one punch never overlap) and
-- fct_time_activities.overlaps_other_punch flags both.
-- A table rebuilt in full on every build: its rows are the inputs int_user_days__changes
-- compares from build to build.

{{ config(materialized='table') }}

with

activities as (

    select
        time_activity_id,
        user_id,
        time_clock_id,
        activity_type,
        job_id,
        sub_job_id,
        scheduler_shift_id,
        manual_break_id,
        started_at,
        ended_at,
        timezone,
        data_source,
        is_open_punch,
        coalesce(duration_hours, 0) as duration_hours
    from {{ ref('fct_time_activities') }}
    where
        not is_deleted
        and user_id is not null
        and started_at is not null
        and activity_type in ('shift', 'manual_break')

),

splits as (

    select
        time_clock_id,
        splits_at_midnight
    from {{ ref('int_time_clocks__overnight_split') }}

),

-- a punch on a clock that splits at midnight: its parts, each on its own day; else one part,
-- the whole punch on its start's day
parts as (

    select
        day_parts.time_activity_id,
        day_parts.local_date as split_date,
        day_parts.part_started_at,
        day_parts.part_ended_at,
        day_parts.part_hours
    from {{ ref('int_time_activities__day_parts') }} as day_parts
    inner join splits on day_parts.time_clock_id = splits.time_clock_id
    where splits.splits_at_midnight and day_parts.part_count > 1

),

shifts as (

    select
        activities.*,
        parts.time_activity_id is not null as is_split_at_midnight,
        parts.split_date,
        coalesce(parts.part_started_at, activities.started_at) as part_started_at,
        coalesce(parts.part_ended_at, activities.ended_at) as part_ended_at,
        coalesce(parts.part_hours, activities.duration_hours) as part_hours,
        coalesce(
            parts.split_date, {{ local_date('activities.started_at', 'activities.timezone') }}
        ) as local_date
    from activities
    left join parts on activities.time_activity_id = parts.time_activity_id
    where activities.activity_type = 'shift'

),

ordered_shifts as (

    select
        *,
        max(part_ended_at) over (
            partition by user_id order by part_started_at, time_activity_id
            rows between unbounded preceding and 1 preceding
        ) as earlier_ended_at
    from shifts

),

breaks as (

    select * from activities
    where activity_type = 'manual_break'

),

policies as (

    select
        time_clock_id,
        manual_break_id,
        is_paid
    from {{ ref('stg_connecteam__manual_breaks') }}
    where not is_deleted

),

break_overlaps as (

    select
        breaks.time_activity_id as break_activity_id,
        shifts.time_activity_id as shift_activity_id,
        shifts.local_date as shift_local_date,
        shifts.part_started_at as shift_started_at,
        {{ epoch_seconds(
            'least(breaks.ended_at, shifts.part_ended_at)'
            ~ ' - greatest(breaks.started_at, shifts.part_started_at)'
        ) }} / 3600.0 as overlap_hours
    from breaks
    inner join shifts
        on
            breaks.user_id = shifts.user_id
            and (
                breaks.time_clock_id = shifts.time_clock_id
                or breaks.time_clock_id is null
                or shifts.time_clock_id is null
            )
            and breaks.started_at < shifts.part_ended_at
            and breaks.ended_at > shifts.part_started_at

),

hosts as (

    {{ first_row_per(
        'break_overlaps', 'break_activity_id', 'shift_started_at, shift_activity_id'
    ) }}

),

shift_breaks as (

    select
        shift_activity_id,
        shift_local_date,
        sum(overlap_hours) as break_overlap_hours
    from break_overlaps
    group by shift_activity_id, shift_local_date

),

covered as (

    select
        time_activity_id,
        local_date,
        {{ epoch_seconds(
            'least(coalesce(part_ended_at, earlier_ended_at), earlier_ended_at) - part_started_at'
        ) }} / 3600.0 as overlapping_punch_hours
    from ordered_shifts
    where earlier_ended_at > part_started_at

),

shift_rows as (

    select
        shifts.time_activity_id,
        shifts.user_id,
        shifts.time_clock_id,
        shifts.activity_type,
        shifts.job_id,
        shifts.sub_job_id,
        shifts.scheduler_shift_id,
        shifts.manual_break_id,
        cast(null as varchar) as host_time_activity_id,
        shifts.started_at,
        shifts.ended_at,
        shifts.timezone,
        shifts.data_source,
        shifts.is_open_punch,
        shifts.is_split_at_midnight,
        shifts.local_date,
        greatest(
            shifts.part_hours
            - coalesce(shift_breaks.break_overlap_hours, 0)
            - coalesce(covered.overlapping_punch_hours, 0),
            0
        ) as worked_hours,
        coalesce(covered.overlapping_punch_hours, 0) as overlapping_punch_hours,
        0.0 as paid_break_hours,
        0.0 as unpaid_break_hours,
        0.0 as unknown_policy_break_hours,
        true as break_policy_known
    from shifts
    left join shift_breaks
        on
            shifts.time_activity_id = shift_breaks.shift_activity_id
            and shifts.local_date is not distinct from shift_breaks.shift_local_date
    left join covered
        on
            shifts.time_activity_id = covered.time_activity_id
            and shifts.local_date is not distinct from covered.local_date

),

break_rows as (

    select
        breaks.time_activity_id,
        breaks.user_id,
        breaks.time_clock_id,
        breaks.activity_type,
        host_shifts.job_id,
        host_shifts.sub_job_id,
        host_shifts.scheduler_shift_id,
        breaks.manual_break_id,
        host_shifts.time_activity_id as host_time_activity_id,
        breaks.started_at,
        breaks.ended_at,
        breaks.timezone,
        breaks.data_source,
        breaks.is_open_punch,
        false as is_split_at_midnight,
        case
            when hosts.break_activity_id is not null then hosts.shift_local_date
            else {{ local_date('breaks.started_at', 'breaks.timezone') }}
        end as local_date,
        0.0 as worked_hours,
        0.0 as overlapping_punch_hours,
        case when policies.is_paid then breaks.duration_hours else 0.0 end as paid_break_hours,
        case when not policies.is_paid then breaks.duration_hours else 0.0 end
            as unpaid_break_hours,
        case when policies.is_paid is null then breaks.duration_hours else 0.0 end
            as unknown_policy_break_hours,
        policies.is_paid is not null as break_policy_known
    from breaks
    left join hosts on breaks.time_activity_id = hosts.break_activity_id
    left join activities as host_shifts
        on hosts.shift_activity_id = host_shifts.time_activity_id
    left join policies
        on
            breaks.manual_break_id = policies.manual_break_id
            and coalesce(breaks.time_clock_id, host_shifts.time_clock_id)
            = policies.time_clock_id

),

unioned as (

    select * from shift_rows
    union all
    select * from break_rows

),

final as (

    select
        case
            when is_split_at_midnight then {{ readable_key(['time_activity_id', 'local_date']) }}
            else time_activity_id
        end as paid_time_key,
        time_activity_id,
        user_id,
        time_clock_id,
        activity_type,
        job_id,
        sub_job_id,
        scheduler_shift_id,
        manual_break_id,
        host_time_activity_id,
        started_at,
        ended_at,
        timezone,
        local_date,
        is_split_at_midnight,
        data_source,
        is_open_punch,
        break_policy_known,
        {{ round_to('worked_hours', 4) }} as worked_hours,
        {{ round_to('overlapping_punch_hours', 4) }} as overlapping_punch_hours,
        {{ round_to('paid_break_hours', 4) }} as paid_break_hours,
        {{ round_to('unpaid_break_hours', 4) }} as unpaid_break_hours,
        {{ round_to('unknown_policy_break_hours', 4) }} as unknown_policy_break_hours,
        {{ round_to('worked_hours + paid_break_hours', 4) }} as paid_hours
    from unioned

)

select * from final
