-- One row per time clock that has closed punches: whether it counts an overnight punch's hours
-- past local midnight on the next day. The spec's timesheet says it may ("if it has been
-- configured in the time clock settings", endDate) and the API exposes no such setting, so the
-- clock's own timesheet tells: on every (user, day) the timesheet pull covered (between the
-- clock's first and last work_date) where the two rules give different hours, the provider's
-- day (work + paid + unpaid break hours: every punch's full length) is nearer to one of them:
--   whole: the hours of the punches starting that day, all of them;
--   split: the hours the day's local midnights cut from every punch (int_time_activities
--     __day_parts).
-- A clock splits when more days side with split than with whole; without a covered day that
-- tells them apart (no timesheet, no overnight punch) it is taken not to split, the rule the
-- timesheet's own records follow (a punch listed on its start's day).

with

parts as (

    select * from {{ ref('int_time_activities__day_parts') }}
    where ended_at is not null and time_clock_id is not null and local_date is not null

),

whole as (

    select
        user_id,
        time_clock_id,
        start_date as local_date,
        sum(part_hours) as whole_hours
    from parts
    group by user_id, time_clock_id, start_date

),

split as (

    select
        user_id,
        time_clock_id,
        local_date,
        sum(part_hours) as split_hours
    from parts
    group by user_id, time_clock_id, local_date

),

timesheet as (

    select
        user_id,
        time_clock_id,
        work_date as local_date,
        sum(
            coalesce(work_hours, 0)
            + coalesce(paid_break_hours, 0)
            + coalesce(unpaid_break_hours, 0)
        ) as provider_hours
    from {{ ref('fct_timesheet_days') }}
    where user_id is not null and time_clock_id is not null and work_date is not null
    group by user_id, time_clock_id, work_date

),

covered as (

    select
        time_clock_id,
        min(local_date) as first_date,
        max(local_date) as last_date
    from timesheet
    group by time_clock_id

),

both_rules as (

    select
        coalesce(whole.user_id, split.user_id) as user_id,
        coalesce(whole.time_clock_id, split.time_clock_id) as time_clock_id,
        coalesce(whole.local_date, split.local_date) as local_date,
        coalesce(whole.whole_hours, 0) as whole_hours,
        coalesce(split.split_hours, 0) as split_hours
    from whole
    full outer join split
        on
            whole.user_id = split.user_id
            and whole.time_clock_id = split.time_clock_id
            and whole.local_date = split.local_date

),

votes as (

    select
        both_rules.time_clock_id,
        abs(coalesce(timesheet.provider_hours, 0) - both_rules.split_hours)
        < abs(coalesce(timesheet.provider_hours, 0) - both_rules.whole_hours) as sides_with_split
    from both_rules
    inner join covered
        on
            both_rules.time_clock_id = covered.time_clock_id
            and both_rules.local_date between covered.first_date and covered.last_date
    left join timesheet
        on
            both_rules.user_id = timesheet.user_id
            and both_rules.time_clock_id = timesheet.time_clock_id
            and both_rules.local_date = timesheet.local_date
    where
        abs(both_rules.split_hours - both_rules.whole_hours)
        > {{ var('timesheet_match_tolerance_hours') }}

),

clocks as (

    select distinct time_clock_id from parts

),

final as (

    select
        clocks.time_clock_id,
        count(*) filter (where votes.sides_with_split) as split_days,
        count(*) filter (where not votes.sides_with_split) as whole_days,
        coalesce(
            count(*) filter (where votes.sides_with_split)
            > count(*) filter (where not votes.sides_with_split),
            false
        ) as splits_at_midnight
    from clocks
    left join votes on clocks.time_clock_id = votes.time_clock_id
    group by clocks.time_clock_id

)

select * from final
