
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