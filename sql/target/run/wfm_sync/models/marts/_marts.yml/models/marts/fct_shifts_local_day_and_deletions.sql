
    -- Build actual result given inputs
with dbt_internal_unit_test_actual as (
  select
    "shift_assignment_key","local_date","is_deleted","scheduler_name", 'actual' as "actual_or_expected"
  from (
    -- One row per shift assignment (open shifts: one row with no user), from the API, with
-- scheduled hours and the local day in the shift's own timezone. Deleted assignments stay,
-- flagged: by the sync's deletion marks or by a newer shift_deleted webhook.

with

 __dbt__cte__stg_connecteam__shifts as (

-- Fixture for stg_connecteam__shifts
select 
    
    cast(9000 as BIGINT)
 as "scheduler_id", 
    
    cast('A:x' as character varying)
 as "slot_id", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "color", 
    
    cast('Australia/Sydney' as character varying)
 as "timezone", cast(null as BOOLEAN) as "is_published", 
    
    cast('A' as character varying)
 as "shift_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "job_id", 
    
    cast('2026-03-01 23:30:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", 
    
    cast('2026-03-02 07:30:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ends_at", cast(null as TIMESTAMP WITH TIME ZONE) as "created_at", 
    
    cast('2026-02-20 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "updated_at", cast(null as TIMESTAMP WITH TIME ZONE) as "deleted_at", 
    
    cast(False as BOOLEAN)
 as "is_deleted", cast(null as DOUBLE) as "scheduled_minutes_gross", cast(null as HUGEINT) as "unpaid_break_minutes", 
    
    cast('9000/A/1' as character varying)
 as "shift_assignment_key", 
    
    cast(8 as DOUBLE)
 as "scheduled_hours"
union all
select 
    
    cast(9000 as BIGINT)
 as "scheduler_id", 
    
    cast('B:y' as character varying)
 as "slot_id", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "color", 
    
    cast('Europe/London' as character varying)
 as "timezone", cast(null as BOOLEAN) as "is_published", 
    
    cast('B' as character varying)
 as "shift_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "job_id", 
    
    cast('2026-03-02 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", 
    
    cast('2026-03-02 17:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ends_at", cast(null as TIMESTAMP WITH TIME ZONE) as "created_at", 
    
    cast('2026-02-20 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "updated_at", cast(null as TIMESTAMP WITH TIME ZONE) as "deleted_at", 
    
    cast(False as BOOLEAN)
 as "is_deleted", cast(null as DOUBLE) as "scheduled_minutes_gross", cast(null as HUGEINT) as "unpaid_break_minutes", 
    
    cast('9000/B/2' as character varying)
 as "shift_assignment_key", 
    
    cast(7.5 as DOUBLE)
 as "scheduled_hours"
union all
select 
    
    cast(9000 as BIGINT)
 as "scheduler_id", 
    
    cast('C:z' as character varying)
 as "slot_id", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "color", 
    
    cast('Europe/London' as character varying)
 as "timezone", cast(null as BOOLEAN) as "is_published", 
    
    cast('C' as character varying)
 as "shift_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "job_id", 
    
    cast('2026-03-03 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", 
    
    cast('2026-03-03 13:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ends_at", cast(null as TIMESTAMP WITH TIME ZONE) as "created_at", 
    
    cast('2026-02-20 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "updated_at", 
    
    cast('2026-02-25 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "deleted_at", 
    
    cast(True as BOOLEAN)
 as "is_deleted", cast(null as DOUBLE) as "scheduled_minutes_gross", cast(null as HUGEINT) as "unpaid_break_minutes", 
    
    cast('9000/C/2' as character varying)
 as "shift_assignment_key", 
    
    cast(4 as DOUBLE)
 as "scheduled_hours"
),  __dbt__cte__stg_connecteam__schedulers as (

-- Fixture for stg_connecteam__schedulers
select 
    
    cast(9000 as BIGINT)
 as "scheduler_id", 
    
    cast('Kitchen' as character varying)
 as "scheduler_name", cast(null as character varying(256)) as "timezone", cast(null as BOOLEAN) as "is_archived"
),  __dbt__cte__stg_webhooks__shift_events as (

-- Fixture for stg_webhooks__shift_events
select cast(null as character varying(256)) as "event_key", cast(null as character varying(256)) as "event_type", 
    
    cast('2026-02-10 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as character varying(256)) as "webhook_version", cast(null as BIGINT) as "user_id", 
    
    cast('A:x' as character varying)
 as "slot_id", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "timezone", 
    
    cast(9000 as BIGINT)
 as "scheduler_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as TIMESTAMP WITH TIME ZONE) as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", 
    
    cast(True as BOOLEAN)
 as "is_deletion", cast(null as character varying(256)) as "shift_id", cast(null as character varying(256)) as "shift_assignment_key", cast(null as character varying(256)) as "shift_event_key"
union all
select cast(null as character varying(256)) as "event_key", cast(null as character varying(256)) as "event_type", 
    
    cast('2026-02-21 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as character varying(256)) as "webhook_version", cast(null as BIGINT) as "user_id", 
    
    cast('B' as character varying)
 as "slot_id", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "timezone", 
    
    cast(9000 as BIGINT)
 as "scheduler_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as TIMESTAMP WITH TIME ZONE) as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", 
    
    cast(True as BOOLEAN)
 as "is_deletion", cast(null as character varying(256)) as "shift_id", cast(null as character varying(256)) as "shift_assignment_key", cast(null as character varying(256)) as "shift_event_key"
), shifts as (

    select * from __dbt__cte__stg_connecteam__shifts

),

schedulers as (

    select * from __dbt__cte__stg_connecteam__schedulers

),

webhook_deletions as (

    select
        scheduler_id,
        slot_id,
        max(event_at) as deleted_at
    from __dbt__cte__stg_webhooks__shift_events
    where is_deletion
    group by scheduler_id, slot_id

),

flagged as (

    select
        shifts.shift_assignment_key,
        max(webhook_deletions.deleted_at) as webhook_deleted_at
    from shifts
    inner join webhook_deletions
        on
            shifts.scheduler_id = webhook_deletions.scheduler_id
            and webhook_deletions.slot_id in (shifts.slot_id, shifts.shift_id)
            and webhook_deletions.deleted_at >= coalesce(shifts.updated_at, shifts.created_at)
    group by shifts.shift_assignment_key

),

final as (

    select
        shifts.shift_assignment_key,
        shifts.scheduler_id,
        schedulers.scheduler_name,
        shifts.shift_id,
        shifts.slot_id,
        shifts.user_id,
        shifts.is_open_shift,
        shifts.title,
        shifts.job_id,
        shifts.starts_at,
        shifts.ends_at,
        shifts.timezone,
        shifts.scheduled_hours,
        shifts.unpaid_break_minutes,
        shifts.is_published,
        cast(shifts.starts_at at time zone shifts.timezone as date) as local_date,
        shifts.is_deleted or flagged.webhook_deleted_at is not null as is_deleted,
        coalesce(shifts.deleted_at, flagged.webhook_deleted_at) as deleted_at

    from shifts
    left join schedulers on shifts.scheduler_id = schedulers.scheduler_id
    left join flagged on shifts.shift_assignment_key = flagged.shift_assignment_key

)

select * from final
  ) _dbt_internal_unit_test_actual
),
-- Build expected result
dbt_internal_unit_test_expected as (
  select
    "shift_assignment_key", "local_date", "is_deleted", "scheduler_name", 'expected' as "actual_or_expected"
  from (
    select 
    
    cast('9000/A/1' as character varying)
 as "shift_assignment_key", 
    
    cast('2026-03-02' as DATE)
 as "local_date", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast('Kitchen' as character varying)
 as "scheduler_name"
union all
select 
    
    cast('9000/B/2' as character varying)
 as "shift_assignment_key", 
    
    cast('2026-03-02' as DATE)
 as "local_date", 
    
    cast(True as BOOLEAN)
 as "is_deleted", 
    
    cast('Kitchen' as character varying)
 as "scheduler_name"
union all
select 
    
    cast('9000/C/2' as character varying)
 as "shift_assignment_key", 
    
    cast('2026-03-03' as DATE)
 as "local_date", 
    
    cast(True as BOOLEAN)
 as "is_deleted", 
    
    cast('Kitchen' as character varying)
 as "scheduler_name"
  ) _dbt_internal_unit_test_expected
)
-- Union actual and expected results
select * from dbt_internal_unit_test_actual
union all
select * from dbt_internal_unit_test_expected