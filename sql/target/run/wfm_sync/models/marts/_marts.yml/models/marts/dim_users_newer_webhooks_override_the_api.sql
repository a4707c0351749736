
    -- Build actual result given inputs
with dbt_internal_unit_test_actual as (
  select
    "user_id","last_name","user_type","is_archived","is_deleted","is_inferred", 'actual' as "actual_or_expected"
  from (
    -- Current state of every user: the API's record, overridden by user webhooks newer than it;
-- users only seen in facts are added as inferred members so no fact loses its user.

with

 __dbt__cte__stg_connecteam__users as (

-- Fixture for stg_connecteam__users
select 
    
    cast(1 as BIGINT)
 as "user_id", 
    
    cast('Ana' as character varying)
 as "first_name", 
    
    cast('Old' as character varying)
 as "last_name", 
    
    cast('user' as character varying)
 as "user_type", cast(null as character varying(256)) as "phone_number", cast(null as JSON) as "custom_fields", cast(null as character varying(256)) as "email", cast(null as character varying(256)) as "kiosk_code", cast(null as character varying(256)) as "full_name", 
    
    cast(False as BOOLEAN)
 as "is_archived", cast(null as TIMESTAMP WITH TIME ZONE) as "created_at", 
    
    cast('2026-01-01 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "modified_at", cast(null as TIMESTAMP WITH TIME ZONE) as "archived_at", cast(null as TIMESTAMP WITH TIME ZONE) as "last_login_at"
union all
select 
    
    cast(2 as BIGINT)
 as "user_id", 
    
    cast('Bo' as character varying)
 as "first_name", 
    
    cast('Keep' as character varying)
 as "last_name", 
    
    cast('user' as character varying)
 as "user_type", cast(null as character varying(256)) as "phone_number", cast(null as JSON) as "custom_fields", cast(null as character varying(256)) as "email", cast(null as character varying(256)) as "kiosk_code", cast(null as character varying(256)) as "full_name", 
    
    cast(False as BOOLEAN)
 as "is_archived", cast(null as TIMESTAMP WITH TIME ZONE) as "created_at", 
    
    cast('2026-02-01 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "modified_at", cast(null as TIMESTAMP WITH TIME ZONE) as "archived_at", cast(null as TIMESTAMP WITH TIME ZONE) as "last_login_at"
),  __dbt__cte__stg_webhooks__user_events as (

-- Fixture for stg_webhooks__user_events
select 
    
    cast('e1' as character varying)
 as "event_key", 
    
    cast('user_updated' as character varying)
 as "event_type", 
    
    cast('2026-01-05 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", 
    
    cast('Ana' as character varying)
 as "first_name", 
    
    cast('New' as character varying)
 as "last_name", cast(null as character varying(256)) as "email", 
    
    cast('user' as character varying)
 as "user_type", 
    
    cast(1 as BIGINT)
 as "user_id", 
    
    cast(False as BOOLEAN)
 as "is_archived", 
    
    cast(True as BOOLEAN)
 as "has_profile", cast(null as character varying(256)) as "user_event_key"
union all
select 
    
    cast('e2' as character varying)
 as "event_key", 
    
    cast('user_updated' as character varying)
 as "event_type", 
    
    cast('2026-01-15 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", 
    
    cast('Bo' as character varying)
 as "first_name", 
    
    cast('Stale' as character varying)
 as "last_name", cast(null as character varying(256)) as "email", 
    
    cast('user' as character varying)
 as "user_type", 
    
    cast(2 as BIGINT)
 as "user_id", 
    
    cast(False as BOOLEAN)
 as "is_archived", 
    
    cast(True as BOOLEAN)
 as "has_profile", cast(null as character varying(256)) as "user_event_key"
union all
select 
    
    cast('e3' as character varying)
 as "event_key", 
    
    cast('user_archived' as character varying)
 as "event_type", 
    
    cast('2026-03-01 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", cast(null as character varying(256)) as "first_name", cast(null as character varying(256)) as "last_name", cast(null as character varying(256)) as "email", cast(null as character varying(256)) as "user_type", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BOOLEAN) as "is_archived", 
    
    cast(False as BOOLEAN)
 as "has_profile", cast(null as character varying(256)) as "user_event_key"
union all
select 
    
    cast('e4' as character varying)
 as "event_key", 
    
    cast('user_promoted' as character varying)
 as "event_type", 
    
    cast('2026-03-01 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", cast(null as character varying(256)) as "first_name", cast(null as character varying(256)) as "last_name", cast(null as character varying(256)) as "email", cast(null as character varying(256)) as "user_type", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BOOLEAN) as "is_archived", 
    
    cast(False as BOOLEAN)
 as "has_profile", cast(null as character varying(256)) as "user_event_key"
union all
select 
    
    cast('e5' as character varying)
 as "event_key", 
    
    cast('user_deleted' as character varying)
 as "event_type", 
    
    cast('2026-03-02 00:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", cast(null as character varying(256)) as "first_name", cast(null as character varying(256)) as "last_name", cast(null as character varying(256)) as "email", cast(null as character varying(256)) as "user_type", 
    
    cast(3 as BIGINT)
 as "user_id", cast(null as BOOLEAN) as "is_archived", 
    
    cast(False as BOOLEAN)
 as "has_profile", cast(null as character varying(256)) as "user_event_key"
),  __dbt__cte__stg_connecteam__shifts as (

-- Fixture for stg_connecteam__shifts
select cast(null as BIGINT) as "scheduler_id", cast(null as character varying(256)) as "slot_id", 
    
    cast(4 as BIGINT)
 as "user_id", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "color", cast(null as character varying(256)) as "timezone", cast(null as BOOLEAN) as "is_published", cast(null as character varying(256)) as "shift_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "job_id", cast(null as TIMESTAMP WITH TIME ZONE) as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", cast(null as TIMESTAMP WITH TIME ZONE) as "created_at", cast(null as TIMESTAMP WITH TIME ZONE) as "updated_at", cast(null as TIMESTAMP WITH TIME ZONE) as "deleted_at", cast(null as BOOLEAN) as "is_deleted", cast(null as DOUBLE) as "scheduled_minutes_gross", cast(null as HUGEINT) as "unpaid_break_minutes", cast(null as character varying(256)) as "shift_assignment_key", cast(null as DOUBLE) as "scheduled_hours"
),  __dbt__cte__stg_webhooks__time_activities as (

-- Fixture for stg_webhooks__time_activities
select cast(null as character varying(256)) as "event_key", cast(null as character varying(256)) as "event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", cast(null as character varying(256)) as "activity_type", 
    
    cast(null as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", cast(null as character varying(256)) as "time_activity_id", cast(null as TIMESTAMP WITH TIME ZONE) as "started_at", cast(null as character varying(256)) as "start_timezone", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as character varying(256)) as "end_timezone", cast(null as character varying(256)) as "end_source_type", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", cast(null as BOOLEAN) as "is_auto_clock_out", cast(null as character varying(256)) as "state_effect"
),  __dbt__cte__stg_webhooks__timesheet_periods as (

-- Fixture for stg_webhooks__timesheet_periods
select cast(null as character varying(256)) as "event_key", cast(null as character varying(256)) as "event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", 
    
    cast(null as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", cast(null as DATE) as "period_start", cast(null as DATE) as "period_end", cast(null as DATE) as "locked_date", cast(null as character varying(256)) as "resulting_status"
),  __dbt__cte__stg_webhooks__availability_statuses as (

-- Fixture for stg_webhooks__availability_statuses
select cast(null as character varying(256)) as "event_key", cast(null as character varying(256)) as "event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", cast(null as character varying(256)) as "availability_status_id", cast(null as character varying(256)) as "availability_type", cast(null as character varying(256)) as "note", cast(null as character varying(256)) as "timezone", 
    
    cast(null as BIGINT)
 as "user_id", cast(null as BIGINT) as "scheduler_id", cast(null as BOOLEAN) as "is_admin_action", cast(null as TIMESTAMP WITH TIME ZONE) as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", cast(null as BOOLEAN) as "is_all_day", cast(null as character varying(256)) as "change_type", cast(null as character varying(256)) as "availability_key", cast(null as character varying(256)) as "availability_event_key"
), api_users as (

    select * from __dbt__cte__stg_connecteam__users

),

user_events as (

    select * from __dbt__cte__stg_webhooks__user_events

),

newer_events as (

    select user_events.*
    from user_events
    left join api_users on user_events.user_id = api_users.user_id
    where
        api_users.user_id is null
        or user_events.event_at > coalesce(api_users.modified_at, '-infinity'::timestamptz)

),

latest_profile as (

    select *
    from newer_events
    where has_profile
    qualify row_number() over (
        partition by user_id order by event_at desc, received_at desc, event_key desc
    ) = 1

),

latest_archival as (

    select
        user_id,
        event_type
    from newer_events
    where event_type in ('user_archived', 'user_restored')
    qualify row_number() over (
        partition by user_id order by event_at desc, received_at desc, event_key desc
    ) = 1

),

latest_role as (

    select
        user_id,
        event_type
    from newer_events
    where event_type in ('user_promoted', 'user_demoted')
    qualify row_number() over (
        partition by user_id order by event_at desc, received_at desc, event_key desc
    ) = 1

),

deletions as (

    select
        user_id,
        max(event_at) as deleted_at
    from user_events
    where event_type = 'user_deleted'
    group by user_id

),

fact_users as (

    select user_id from __dbt__cte__stg_connecteam__shifts
    union
    select user_id from __dbt__cte__stg_webhooks__time_activities
    union
    select user_id from __dbt__cte__stg_webhooks__timesheet_periods
    union
    select user_id from __dbt__cte__stg_webhooks__availability_statuses

),

all_users as (

    select user_id from api_users
    union
    select user_id from user_events
    union
    select user_id from fact_users

),

final as (

    select
        all_users.user_id,
        coalesce(latest_profile.first_name, api_users.first_name) as first_name,
        coalesce(latest_profile.last_name, api_users.last_name) as last_name,
        coalesce(latest_profile.email, api_users.email) as email,
        api_users.created_at,
        api_users.modified_at as api_modified_at,
        deletions.deleted_at,
        trim(concat_ws(
            ' ',
            coalesce(latest_profile.first_name, api_users.first_name),
            coalesce(latest_profile.last_name, api_users.last_name)
        )) as full_name,
        case latest_role.event_type
            when 'user_promoted' then 'manager'
            when 'user_demoted' then 'user'
            else coalesce(latest_profile.user_type, api_users.user_type)
        end as user_type,
        case latest_archival.event_type
            when 'user_archived' then true
            when 'user_restored' then false
            else coalesce(latest_profile.is_archived, api_users.is_archived, false)
        end as is_archived,
        deletions.user_id is not null as is_deleted,
        api_users.user_id is not null as is_in_api,
        api_users.user_id is null and latest_profile.user_id is null as is_inferred,
        latest_profile.user_id is not null
        or latest_archival.user_id is not null
        or latest_role.user_id is not null as is_overridden_by_webhook

    from all_users
    left join api_users on all_users.user_id = api_users.user_id
    left join latest_profile on all_users.user_id = latest_profile.user_id
    left join latest_archival on all_users.user_id = latest_archival.user_id
    left join latest_role on all_users.user_id = latest_role.user_id
    left join deletions on all_users.user_id = deletions.user_id
    where all_users.user_id is not null

)

select * from final
  ) _dbt_internal_unit_test_actual
),
-- Build expected result
dbt_internal_unit_test_expected as (
  select
    "user_id", "last_name", "user_type", "is_archived", "is_deleted", "is_inferred", 'expected' as "actual_or_expected"
  from (
    select 
    
    cast(1 as BIGINT)
 as "user_id", 
    
    cast('New' as character varying)
 as "last_name", 
    
    cast('manager' as character varying)
 as "user_type", 
    
    cast(False as BOOLEAN)
 as "is_archived", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(False as BOOLEAN)
 as "is_inferred"
union all
select 
    
    cast(2 as BIGINT)
 as "user_id", 
    
    cast('Keep' as character varying)
 as "last_name", 
    
    cast('user' as character varying)
 as "user_type", 
    
    cast(True as BOOLEAN)
 as "is_archived", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(False as BOOLEAN)
 as "is_inferred"
union all
select 
    
    cast(3 as BIGINT)
 as "user_id", 
    
    cast(null as character varying(256))
 as "last_name", 
    
    cast(null as character varying(256))
 as "user_type", 
    
    cast(False as BOOLEAN)
 as "is_archived", 
    
    cast(True as BOOLEAN)
 as "is_deleted", 
    
    cast(True as BOOLEAN)
 as "is_inferred"
union all
select 
    
    cast(4 as BIGINT)
 as "user_id", 
    
    cast(null as character varying(256))
 as "last_name", 
    
    cast(null as character varying(256))
 as "user_type", 
    
    cast(False as BOOLEAN)
 as "is_archived", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(True as BOOLEAN)
 as "is_inferred"
  ) _dbt_internal_unit_test_expected
)
-- Union actual and expected results
select * from dbt_internal_unit_test_actual
union all
select * from dbt_internal_unit_test_expected