
    -- Build actual result given inputs
with dbt_internal_unit_test_actual as (
  select
    "time_activity_id","last_event_type","duration_hours","is_open_punch","is_deleted","event_count", 'actual' as "actual_or_expected"
  from (
    -- The latest state of every time activity, from its webhook events: the event with the newest
-- event time wins, whatever order the events arrived in. Deleted activities stay, flagged.

with

 __dbt__cte__stg_webhooks__time_activities as (

-- Fixture for stg_webhooks__time_activities
select 
    
    cast('a1-edit' as character varying)
 as "event_key", 
    
    cast('admin_edit' as character varying)
 as "event_type", 
    
    cast('2026-03-02 18:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", 
    
    cast('2026-03-02 18:00:01+00' as TIMESTAMP WITH TIME ZONE)
 as "received_at", 
    
    cast('shift' as character varying)
 as "activity_type", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('a1' as character varying)
 as "time_activity_id", 
    
    cast('2026-03-02 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", 
    
    cast('Europe/London' as character varying)
 as "start_timezone", 
    
    cast('2026-03-02 17:30:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ended_at", cast(null as character varying(256)) as "end_timezone", cast(null as character varying(256)) as "end_source_type", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", cast(null as BOOLEAN) as "is_auto_clock_out", 
    
    cast('upsert' as character varying)
 as "state_effect"
union all
select 
    
    cast('a1-in' as character varying)
 as "event_key", 
    
    cast('clock_in' as character varying)
 as "event_type", 
    
    cast('2026-03-02 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", 
    
    cast('2026-03-02 18:05:00+00' as TIMESTAMP WITH TIME ZONE)
 as "received_at", 
    
    cast('shift' as character varying)
 as "activity_type", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('a1' as character varying)
 as "time_activity_id", 
    
    cast('2026-03-02 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", 
    
    cast('Europe/London' as character varying)
 as "start_timezone", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as character varying(256)) as "end_timezone", cast(null as character varying(256)) as "end_source_type", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", cast(null as BOOLEAN) as "is_auto_clock_out", 
    
    cast('upsert' as character varying)
 as "state_effect"
union all
select 
    
    cast('a1-out' as character varying)
 as "event_key", 
    
    cast('clock_out' as character varying)
 as "event_type", 
    
    cast('2026-03-02 17:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", 
    
    cast('2026-03-02 18:10:00+00' as TIMESTAMP WITH TIME ZONE)
 as "received_at", 
    
    cast('shift' as character varying)
 as "activity_type", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('a1' as character varying)
 as "time_activity_id", 
    
    cast('2026-03-02 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", 
    
    cast('Europe/London' as character varying)
 as "start_timezone", 
    
    cast('2026-03-02 17:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ended_at", cast(null as character varying(256)) as "end_timezone", cast(null as character varying(256)) as "end_source_type", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", cast(null as BOOLEAN) as "is_auto_clock_out", 
    
    cast('upsert' as character varying)
 as "state_effect"
union all
select 
    
    cast('a2-add' as character varying)
 as "event_key", 
    
    cast('admin_add' as character varying)
 as "event_type", 
    
    cast('2026-03-03 12:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", 
    
    cast('2026-03-03 12:00:01+00' as TIMESTAMP WITH TIME ZONE)
 as "received_at", 
    
    cast('shift' as character varying)
 as "activity_type", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('a2' as character varying)
 as "time_activity_id", 
    
    cast('2026-03-03 08:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", 
    
    cast('Europe/London' as character varying)
 as "start_timezone", 
    
    cast('2026-03-03 10:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ended_at", cast(null as character varying(256)) as "end_timezone", cast(null as character varying(256)) as "end_source_type", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", cast(null as BOOLEAN) as "is_auto_clock_out", 
    
    cast('upsert' as character varying)
 as "state_effect"
union all
select 
    
    cast('a2-del' as character varying)
 as "event_key", 
    
    cast('admin_delete' as character varying)
 as "event_type", 
    
    cast('2026-03-03 11:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", 
    
    cast('2026-03-03 13:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "received_at", 
    
    cast('shift' as character varying)
 as "activity_type", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('a2' as character varying)
 as "time_activity_id", 
    
    cast('2026-03-03 08:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", 
    
    cast('Europe/London' as character varying)
 as "start_timezone", 
    
    cast('2026-03-03 10:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ended_at", cast(null as character varying(256)) as "end_timezone", cast(null as character varying(256)) as "end_source_type", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", cast(null as BOOLEAN) as "is_auto_clock_out", 
    
    cast('delete' as character varying)
 as "state_effect"
union all
select 
    
    cast('a3-in' as character varying)
 as "event_key", 
    
    cast('clock_in' as character varying)
 as "event_type", 
    
    cast('2026-03-04 08:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", 
    
    cast('2026-03-04 08:00:01+00' as TIMESTAMP WITH TIME ZONE)
 as "received_at", 
    
    cast('shift' as character varying)
 as "activity_type", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('a3' as character varying)
 as "time_activity_id", 
    
    cast('2026-03-04 08:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", 
    
    cast('Europe/London' as character varying)
 as "start_timezone", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as character varying(256)) as "end_timezone", cast(null as character varying(256)) as "end_source_type", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", cast(null as BOOLEAN) as "is_auto_clock_out", 
    
    cast('upsert' as character varying)
 as "state_effect"
union all
select 
    
    cast('a4-in' as character varying)
 as "event_key", 
    
    cast('clock_in' as character varying)
 as "event_type", 
    
    cast('2026-03-05 08:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", 
    
    cast('2026-03-05 08:00:01+00' as TIMESTAMP WITH TIME ZONE)
 as "received_at", 
    
    cast('shift' as character varying)
 as "activity_type", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('a4' as character varying)
 as "time_activity_id", 
    
    cast('2026-03-05 08:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", 
    
    cast('Europe/London' as character varying)
 as "start_timezone", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as character varying(256)) as "end_timezone", cast(null as character varying(256)) as "end_source_type", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", cast(null as BOOLEAN) as "is_auto_clock_out", 
    
    cast('upsert' as character varying)
 as "state_effect"
union all
select 
    
    cast('a4-del' as character varying)
 as "event_key", 
    
    cast('admin_delete' as character varying)
 as "event_type", 
    
    cast('2026-03-05 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", 
    
    cast('2026-03-05 09:00:01+00' as TIMESTAMP WITH TIME ZONE)
 as "received_at", 
    
    cast('shift' as character varying)
 as "activity_type", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('a4' as character varying)
 as "time_activity_id", 
    
    cast('2026-03-05 08:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", 
    
    cast('Europe/London' as character varying)
 as "start_timezone", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as character varying(256)) as "end_timezone", cast(null as character varying(256)) as "end_source_type", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", cast(null as BOOLEAN) as "is_auto_clock_out", 
    
    cast('delete' as character varying)
 as "state_effect"
), events as (

    select * from __dbt__cte__stg_webhooks__time_activities
    where state_effect in ('upsert', 'delete') and time_activity_id is not null

),

latest as (

    select *
    from events
    qualify row_number() over (
        partition by time_activity_id order by event_at desc, received_at desc, event_key desc
    ) = 1

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
        latest.scheduler_shift_id,
        latest.started_at,
        latest.ended_at,
        latest.is_auto_clock_out,
        latest.auto_clock_out_mode,
        latest.event_type as last_event_type,
        latest.event_at as last_event_at,
        event_counts.event_count,
        coalesce(latest.start_timezone, latest.end_timezone, 'UTC') as timezone,
        latest.state_effect = 'delete' as is_deleted,
        latest.ended_at is null and latest.state_effect <> 'delete' as is_open_punch,
        case
            when latest.ended_at is not null
                then round(epoch(latest.ended_at - latest.started_at) / 3600.0, 4)
        end as duration_hours

    from latest
    inner join event_counts on latest.time_activity_id = event_counts.time_activity_id

)

select * from final
  ) _dbt_internal_unit_test_actual
),
-- Build expected result
dbt_internal_unit_test_expected as (
  select
    "time_activity_id", "last_event_type", "duration_hours", "is_open_punch", "is_deleted", "event_count", 'expected' as "actual_or_expected"
  from (
    select 
    
    cast('a1' as character varying)
 as "time_activity_id", 
    
    cast('admin_edit' as character varying)
 as "last_event_type", 
    
    cast(8.5 as DOUBLE)
 as "duration_hours", 
    
    cast(False as BOOLEAN)
 as "is_open_punch", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(3 as BIGINT)
 as "event_count"
union all
select 
    
    cast('a2' as character varying)
 as "time_activity_id", 
    
    cast('admin_add' as character varying)
 as "last_event_type", 
    
    cast(2.0 as DOUBLE)
 as "duration_hours", 
    
    cast(False as BOOLEAN)
 as "is_open_punch", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(2 as BIGINT)
 as "event_count"
union all
select 
    
    cast('a3' as character varying)
 as "time_activity_id", 
    
    cast('clock_in' as character varying)
 as "last_event_type", 
    
    cast(null as DOUBLE)
 as "duration_hours", 
    
    cast(True as BOOLEAN)
 as "is_open_punch", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(1 as BIGINT)
 as "event_count"
union all
select 
    
    cast('a4' as character varying)
 as "time_activity_id", 
    
    cast('admin_delete' as character varying)
 as "last_event_type", 
    
    cast(null as DOUBLE)
 as "duration_hours", 
    
    cast(False as BOOLEAN)
 as "is_open_punch", 
    
    cast(True as BOOLEAN)
 as "is_deleted", 
    
    cast(2 as BIGINT)
 as "event_count"
  ) _dbt_internal_unit_test_expected
)
-- Union actual and expected results
select * from dbt_internal_unit_test_actual
union all
select * from dbt_internal_unit_test_expected