
-- Fixture for stg_webhooks__availability_statuses
select cast(null as character varying(256)) as "event_key", cast(null as character varying(256)) as "event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", cast(null as character varying(256)) as "availability_status_id", cast(null as character varying(256)) as "availability_type", cast(null as character varying(256)) as "note", cast(null as character varying(256)) as "timezone", 
    
    cast(null as BIGINT)
 as "user_id", cast(null as BIGINT) as "scheduler_id", cast(null as BOOLEAN) as "is_admin_action", cast(null as TIMESTAMP WITH TIME ZONE) as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", cast(null as BOOLEAN) as "is_all_day", cast(null as character varying(256)) as "change_type", cast(null as character varying(256)) as "availability_key", cast(null as character varying(256)) as "availability_event_key"