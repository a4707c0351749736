
    -- Build actual result given inputs
with dbt_internal_unit_test_actual as (
  select
    "daily_hours_key","scheduled_hours","worked_hours","variance_hours","shift_count","punch_count","open_punch_count", 'actual' as "actual_or_expected"
  from (
    -- User x local day: scheduled hours (live shift assignments) next to worked hours (shift
-- activities minus manual breaks, deleted activities excluded) and the variance. Each shift and
-- punch counts on the local day of its start, in its own timezone.

with

 __dbt__cte__fct_shifts as (

-- Fixture for fct_shifts
select cast(null as character varying(256)) as "shift_assignment_key", cast(null as BIGINT) as "scheduler_id", cast(null as character varying(256)) as "scheduler_name", cast(null as character varying(256)) as "shift_id", cast(null as character varying(256)) as "slot_id", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "job_id", 
    
    cast('2026-03-02 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(7.5 as DOUBLE)
 as "scheduled_hours", cast(null as HUGEINT) as "unpaid_break_minutes", cast(null as BOOLEAN) as "is_published", cast(null as DATE) as "local_date", 
    
    cast(False as BOOLEAN)
 as "is_deleted", cast(null as TIMESTAMP WITH TIME ZONE) as "deleted_at"
union all
select cast(null as character varying(256)) as "shift_assignment_key", cast(null as BIGINT) as "scheduler_id", cast(null as character varying(256)) as "scheduler_name", cast(null as character varying(256)) as "shift_id", cast(null as character varying(256)) as "slot_id", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "job_id", 
    
    cast('2026-03-08 03:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", 
    
    cast('America/New_York' as character varying)
 as "timezone", 
    
    cast(8 as DOUBLE)
 as "scheduled_hours", cast(null as HUGEINT) as "unpaid_break_minutes", cast(null as BOOLEAN) as "is_published", cast(null as DATE) as "local_date", 
    
    cast(False as BOOLEAN)
 as "is_deleted", cast(null as TIMESTAMP WITH TIME ZONE) as "deleted_at"
union all
select cast(null as character varying(256)) as "shift_assignment_key", cast(null as BIGINT) as "scheduler_id", cast(null as character varying(256)) as "scheduler_name", cast(null as character varying(256)) as "shift_id", cast(null as character varying(256)) as "slot_id", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "job_id", 
    
    cast('2026-03-02 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(4 as DOUBLE)
 as "scheduled_hours", cast(null as HUGEINT) as "unpaid_break_minutes", cast(null as BOOLEAN) as "is_published", cast(null as DATE) as "local_date", 
    
    cast(False as BOOLEAN)
 as "is_deleted", cast(null as TIMESTAMP WITH TIME ZONE) as "deleted_at"
union all
select cast(null as character varying(256)) as "shift_assignment_key", cast(null as BIGINT) as "scheduler_id", cast(null as character varying(256)) as "scheduler_name", cast(null as character varying(256)) as "shift_id", cast(null as character varying(256)) as "slot_id", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "job_id", 
    
    cast('2026-03-02 14:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(6 as DOUBLE)
 as "scheduled_hours", cast(null as HUGEINT) as "unpaid_break_minutes", cast(null as BOOLEAN) as "is_published", cast(null as DATE) as "local_date", 
    
    cast(True as BOOLEAN)
 as "is_deleted", cast(null as TIMESTAMP WITH TIME ZONE) as "deleted_at"
),  __dbt__cte__fct_time_activities as (

-- Fixture for fct_time_activities
select cast(null as character varying(256)) as "time_activity_id", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('shift' as character varying)
 as "activity_type", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", 
    
    cast('2026-03-02 08:55:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as BOOLEAN) as "is_auto_clock_out", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "last_event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "last_event_at", cast(null as BIGINT) as "event_count", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(False as BOOLEAN)
 as "is_open_punch", 
    
    cast(8.1667 as DOUBLE)
 as "duration_hours"
union all
select cast(null as character varying(256)) as "time_activity_id", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('manual_break' as character varying)
 as "activity_type", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", 
    
    cast('2026-03-02 12:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as BOOLEAN) as "is_auto_clock_out", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "last_event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "last_event_at", cast(null as BIGINT) as "event_count", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(False as BOOLEAN)
 as "is_open_punch", 
    
    cast(0.5 as DOUBLE)
 as "duration_hours"
union all
select cast(null as character varying(256)) as "time_activity_id", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('shift' as character varying)
 as "activity_type", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", 
    
    cast('2026-03-08 03:10:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as BOOLEAN) as "is_auto_clock_out", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "last_event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "last_event_at", cast(null as BIGINT) as "event_count", 
    
    cast('America/New_York' as character varying)
 as "timezone", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(False as BOOLEAN)
 as "is_open_punch", 
    
    cast(7.8333 as DOUBLE)
 as "duration_hours"
union all
select cast(null as character varying(256)) as "time_activity_id", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('shift' as character varying)
 as "activity_type", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", 
    
    cast('2026-03-02 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as BOOLEAN) as "is_auto_clock_out", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "last_event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "last_event_at", cast(null as BIGINT) as "event_count", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(False as BOOLEAN)
 as "is_open_punch", 
    
    cast(2 as DOUBLE)
 as "duration_hours"
union all
select cast(null as character varying(256)) as "time_activity_id", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('shift' as character varying)
 as "activity_type", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", 
    
    cast('2026-03-02 11:30:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as BOOLEAN) as "is_auto_clock_out", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "last_event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "last_event_at", cast(null as BIGINT) as "event_count", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(True as BOOLEAN)
 as "is_open_punch", 
    
    cast(null as DOUBLE)
 as "duration_hours"
), shifts as (

    select
        user_id,
        scheduled_hours,
        cast(starts_at at time zone timezone as date) as local_date
    from __dbt__cte__fct_shifts
    where not is_deleted and user_id is not null

),

activities as (

    select
        user_id,
        activity_type,
        duration_hours,
        is_open_punch,
        cast(started_at at time zone timezone as date) as local_date
    from __dbt__cte__fct_time_activities
    where not is_deleted and user_id is not null and started_at is not null

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
        count(*) filter (where is_open_punch) as open_punch_count
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
        coalesce(worked.open_punch_count, 0) as open_punch_count
    from scheduled
    full outer join worked
        on scheduled.user_id = worked.user_id and scheduled.local_date = worked.local_date

),

final as (

    select
        *,
        round(worked_hours - scheduled_hours, 4) as variance_hours,
        cast(user_id as varchar) || '/' || cast(local_date as varchar) as daily_hours_key
    from joined

)

select * from final
  ) _dbt_internal_unit_test_actual
),
-- Build expected result
dbt_internal_unit_test_expected as (
  select
    "daily_hours_key", "scheduled_hours", "worked_hours", "variance_hours", "shift_count", "punch_count", "open_punch_count", 'expected' as "actual_or_expected"
  from (
    select 
    
    cast('1/2026-03-02' as character varying)
 as "daily_hours_key", 
    
    cast(7.5 as DOUBLE)
 as "scheduled_hours", 
    
    cast(7.6667 as DOUBLE)
 as "worked_hours", 
    
    cast(0.1667 as DOUBLE)
 as "variance_hours", 
    
    cast(1 as BIGINT)
 as "shift_count", 
    
    cast(1 as BIGINT)
 as "punch_count", 
    
    cast(0 as BIGINT)
 as "open_punch_count"
union all
select 
    
    cast('1/2026-03-07' as character varying)
 as "daily_hours_key", 
    
    cast(8.0 as DOUBLE)
 as "scheduled_hours", 
    
    cast(7.8333 as DOUBLE)
 as "worked_hours", 
    
    cast(-0.1667 as DOUBLE)
 as "variance_hours", 
    
    cast(1 as BIGINT)
 as "shift_count", 
    
    cast(1 as BIGINT)
 as "punch_count", 
    
    cast(0 as BIGINT)
 as "open_punch_count"
union all
select 
    
    cast('2/2026-03-02' as character varying)
 as "daily_hours_key", 
    
    cast(4.0 as DOUBLE)
 as "scheduled_hours", 
    
    cast(2.0 as DOUBLE)
 as "worked_hours", 
    
    cast(-2.0 as DOUBLE)
 as "variance_hours", 
    
    cast(1 as BIGINT)
 as "shift_count", 
    
    cast(2 as BIGINT)
 as "punch_count", 
    
    cast(1 as BIGINT)
 as "open_punch_count"
  ) _dbt_internal_unit_test_expected
)
-- Union actual and expected results
select * from dbt_internal_unit_test_actual
union all
select * from dbt_internal_unit_test_expected