
    -- Build actual result given inputs
with dbt_internal_unit_test_actual as (
  select
    "availability_key","user_id","duration_hours", 'actual' as "actual_or_expected"
  from (
    -- User x availability status interval, net of deletions: each status in its latest state by
-- event time; statuses whose latest event deleted them are left out.

with

 __dbt__cte__stg_webhooks__availability_statuses as (

-- Fixture for stg_webhooks__availability_statuses
select 
    
    cast('c1' as character varying)
 as "event_key", cast(null as character varying(256)) as "event_type", 
    
    cast('2026-03-01 10:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", cast(null as character varying(256)) as "availability_status_id", 
    
    cast('unavailable' as character varying)
 as "availability_type", cast(null as character varying(256)) as "note", cast(null as character varying(256)) as "timezone", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "scheduler_id", cast(null as BOOLEAN) as "is_admin_action", 
    
    cast('2026-03-02 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", 
    
    cast('2026-03-03 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ends_at", cast(null as BOOLEAN) as "is_all_day", 
    
    cast('created' as character varying)
 as "change_type", 
    
    cast('k1' as character varying)
 as "availability_key", cast(null as character varying(256)) as "availability_event_key"
union all
select 
    
    cast('c2' as character varying)
 as "event_key", cast(null as character varying(256)) as "event_type", 
    
    cast('2026-03-01 10:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", cast(null as character varying(256)) as "availability_status_id", 
    
    cast('preferToWork' as character varying)
 as "availability_type", cast(null as character varying(256)) as "note", cast(null as character varying(256)) as "timezone", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "scheduler_id", cast(null as BOOLEAN) as "is_admin_action", 
    
    cast('2026-03-04 08:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", 
    
    cast('2026-03-04 12:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ends_at", cast(null as BOOLEAN) as "is_all_day", 
    
    cast('created' as character varying)
 as "change_type", 
    
    cast('k2' as character varying)
 as "availability_key", cast(null as character varying(256)) as "availability_event_key"
union all
select 
    
    cast('d2' as character varying)
 as "event_key", cast(null as character varying(256)) as "event_type", 
    
    cast('2026-03-01 11:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", cast(null as character varying(256)) as "availability_status_id", 
    
    cast('preferToWork' as character varying)
 as "availability_type", cast(null as character varying(256)) as "note", cast(null as character varying(256)) as "timezone", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "scheduler_id", cast(null as BOOLEAN) as "is_admin_action", 
    
    cast('2026-03-04 08:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", 
    
    cast('2026-03-04 12:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ends_at", cast(null as BOOLEAN) as "is_all_day", 
    
    cast('deleted' as character varying)
 as "change_type", 
    
    cast('k2' as character varying)
 as "availability_key", cast(null as character varying(256)) as "availability_event_key"
union all
select 
    
    cast('d3' as character varying)
 as "event_key", cast(null as character varying(256)) as "event_type", 
    
    cast('2026-03-01 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", cast(null as character varying(256)) as "availability_status_id", 
    
    cast('absence' as character varying)
 as "availability_type", cast(null as character varying(256)) as "note", cast(null as character varying(256)) as "timezone", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BIGINT) as "scheduler_id", cast(null as BOOLEAN) as "is_admin_action", 
    
    cast('2026-03-05 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", 
    
    cast('2026-03-07 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ends_at", cast(null as BOOLEAN) as "is_all_day", 
    
    cast('deleted' as character varying)
 as "change_type", 
    
    cast('k3' as character varying)
 as "availability_key", cast(null as character varying(256)) as "availability_event_key"
union all
select 
    
    cast('c3' as character varying)
 as "event_key", cast(null as character varying(256)) as "event_type", 
    
    cast('2026-03-01 12:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", cast(null as character varying(256)) as "availability_status_id", 
    
    cast('absence' as character varying)
 as "availability_type", cast(null as character varying(256)) as "note", cast(null as character varying(256)) as "timezone", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BIGINT) as "scheduler_id", cast(null as BOOLEAN) as "is_admin_action", 
    
    cast('2026-03-05 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", 
    
    cast('2026-03-07 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "ends_at", cast(null as BOOLEAN) as "is_all_day", 
    
    cast('created' as character varying)
 as "change_type", 
    
    cast('k3' as character varying)
 as "availability_key", cast(null as character varying(256)) as "availability_event_key"
), items as (

    select * from __dbt__cte__stg_webhooks__availability_statuses
    where user_id is not null

),

latest as (

    select *
    from items
    qualify row_number() over (
        partition by availability_key order by event_at desc, received_at desc, event_key desc
    ) = 1

),

final as (

    select
        availability_key,
        availability_status_id,
        user_id,
        scheduler_id,
        availability_type,
        starts_at,
        ends_at,
        timezone,
        is_all_day,
        note,
        is_admin_action,
        event_at as recorded_at,
        round(epoch(ends_at - starts_at) / 3600.0, 4) as duration_hours

    from latest
    where change_type = 'created'

)

select * from final
  ) _dbt_internal_unit_test_actual
),
-- Build expected result
dbt_internal_unit_test_expected as (
  select
    "availability_key", "user_id", "duration_hours", 'expected' as "actual_or_expected"
  from (
    select 
    
    cast('k1' as character varying)
 as "availability_key", 
    
    cast(1 as BIGINT)
 as "user_id", 
    
    cast(24.0 as DOUBLE)
 as "duration_hours"
union all
select 
    
    cast('k3' as character varying)
 as "availability_key", 
    
    cast(2 as BIGINT)
 as "user_id", 
    
    cast(48.0 as DOUBLE)
 as "duration_hours"
  ) _dbt_internal_unit_test_expected
)
-- Union actual and expected results
select * from dbt_internal_unit_test_actual
union all
select * from dbt_internal_unit_test_expected