
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