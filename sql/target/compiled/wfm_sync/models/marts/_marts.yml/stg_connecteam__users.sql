
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