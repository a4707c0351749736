
    -- Build actual result given inputs
with dbt_internal_unit_test_actual as (
  select
    "webhook_version","shift_assignment_key","user_id", 'actual' as "actual_or_expected"
  from (
    -- One row per shift assignment named by a shift webhook event, whatever its version: V1 sends one
-- event per assigned user (slot ids `<shiftId>:<uuid>`), V2 one event per shift with every
-- `assignedUserIds`. Deleted events name ids only (`data.ids`).

with

 __dbt__cte__webhooks__events as (

-- Fixture for events
select 
    
    cast('v1-a' as character varying)
 as "event_key", 
    
    cast('shift_created' as character varying)
 as "event_type", 
    
    cast('shift' as character varying)
 as "family", cast(null as BOOLEAN) as "is_known_type", cast(null as character varying(256)) as "activity_type", cast(null as character varying(256)) as "company", 
    
    cast('2026-03-01 10:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_timestamp", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", 
    
    cast('v1' as character varying)
 as "webhook_version", cast(null as BIGINT) as "inbox_id", 
    
    cast('{"schedulerId": 9000, "webhookVersion": "v1", "data": {"shifts": [{"id": "S1:u-1", "assignedUserIds": [1], "startTime": 1772359200, "endTime": 1772388000, "timezone": "Europe/London", "isOpenShift": false}]}}' as JSON)
 as "payload"
union all
select 
    
    cast('v1-b' as character varying)
 as "event_key", 
    
    cast('shift_created' as character varying)
 as "event_type", 
    
    cast('shift' as character varying)
 as "family", cast(null as BOOLEAN) as "is_known_type", cast(null as character varying(256)) as "activity_type", cast(null as character varying(256)) as "company", 
    
    cast('2026-03-01 10:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_timestamp", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", 
    
    cast('v1' as character varying)
 as "webhook_version", cast(null as BIGINT) as "inbox_id", 
    
    cast('{"schedulerId": 9000, "webhookVersion": "v1", "data": {"shifts": [{"id": "S1:u-2", "assignedUserIds": [2], "startTime": 1772359200, "endTime": 1772388000, "timezone": "Europe/London", "isOpenShift": false}]}}' as JSON)
 as "payload"
union all
select 
    
    cast('v2-a' as character varying)
 as "event_key", 
    
    cast('shift_created' as character varying)
 as "event_type", 
    
    cast('shift' as character varying)
 as "family", cast(null as BOOLEAN) as "is_known_type", cast(null as character varying(256)) as "activity_type", cast(null as character varying(256)) as "company", 
    
    cast('2026-03-01 10:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_timestamp", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", 
    
    cast('v2' as character varying)
 as "webhook_version", cast(null as BIGINT) as "inbox_id", 
    
    cast('{"schedulerId": 9000, "webhookVersion": "v2", "data": {"shifts": [{"id": "S1", "assignedUserIds": [1, 2], "startTime": 1772359200, "endTime": 1772388000, "timezone": "Europe/London", "isOpenShift": false}]}}' as JSON)
 as "payload"
), source as (

    select * from __dbt__cte__webhooks__events
    where family = 'shift'

),

shift_items as (

    select
        source.event_key,
        source.event_type,
        source.event_timestamp,
        source.webhook_version,
        source.payload,
        unnest(json_extract(source.payload, '$.data.shifts[*]')) as shift
    from source

),

assigned as (

    select
        shift_items.*,
        unnest(
            case
                when json_array_length(shift_items.shift -> 'assignedUserIds') > 0
                    then cast(shift_items.shift -> 'assignedUserIds' as bigint[])
                else [cast(null as bigint)]
            end
        ) as user_id
    from shift_items

),

deleted as (

    select
        source.event_key,
        source.event_type,
        source.event_timestamp,
        source.webhook_version,
        source.payload,
        unnest(json_extract_string(source.payload, '$.data.ids[*]')) as slot_id
    from source

),

changed_rows as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        webhook_version,
        user_id,
        shift ->> 'id' as slot_id,
        shift ->> 'title' as title,
        shift ->> 'timezone' as timezone,
        cast(payload ->> 'schedulerId' as bigint) as scheduler_id,
        coalesce(cast(shift ->> 'isOpenShift' as boolean), false) as is_open_shift,
        to_timestamp(nullif(cast(shift ->> 'startTime' as bigint), 0)) as starts_at,
        to_timestamp(nullif(cast(shift ->> 'endTime' as bigint), 0)) as ends_at,
        false as is_deletion
    from assigned

),

deleted_rows as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        webhook_version,
        cast(null as bigint) as user_id,
        slot_id,
        cast(null as varchar) as title,
        cast(null as varchar) as timezone,
        cast(payload ->> 'schedulerId' as bigint) as scheduler_id,
        false as is_open_shift,
        cast(null as timestamptz) as starts_at,
        cast(null as timestamptz) as ends_at,
        true as is_deletion
    from deleted

),

unioned as (

    select * from changed_rows
    union all
    select * from deleted_rows

),

final as (

    select
        *,
        split_part(slot_id, ':', 1) as shift_id,
        cast(scheduler_id as varchar) || '/' || split_part(slot_id, ':', 1) || '/'
        || coalesce(cast(user_id as varchar), case when is_deletion then 'all' else 'open' end)
            as shift_assignment_key,
        event_key || '/' || slot_id || '/' || coalesce(cast(user_id as varchar), 'none')
            as shift_event_key
    from unioned

)

select * from final
  ) _dbt_internal_unit_test_actual
),
-- Build expected result
dbt_internal_unit_test_expected as (
  select
    "webhook_version", "shift_assignment_key", "user_id", 'expected' as "actual_or_expected"
  from (
    select 
    
    cast('v1' as character varying)
 as "webhook_version", 
    
    cast('9000/S1/1' as character varying)
 as "shift_assignment_key", 
    
    cast(1 as BIGINT)
 as "user_id"
union all
select 
    
    cast('v1' as character varying)
 as "webhook_version", 
    
    cast('9000/S1/2' as character varying)
 as "shift_assignment_key", 
    
    cast(2 as BIGINT)
 as "user_id"
union all
select 
    
    cast('v2' as character varying)
 as "webhook_version", 
    
    cast('9000/S1/1' as character varying)
 as "shift_assignment_key", 
    
    cast(1 as BIGINT)
 as "user_id"
union all
select 
    
    cast('v2' as character varying)
 as "webhook_version", 
    
    cast('9000/S1/2' as character varying)
 as "shift_assignment_key", 
    
    cast(2 as BIGINT)
 as "user_id"
  ) _dbt_internal_unit_test_expected
)
-- Union actual and expected results
select * from dbt_internal_unit_test_actual
union all
select * from dbt_internal_unit_test_expected