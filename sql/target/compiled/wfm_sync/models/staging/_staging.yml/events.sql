
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