
-- Fixture for fct_shifts
select cast(null as character varying(256)) as "shift_assignment_key", cast(null as BIGINT) as "scheduler_id", cast(null as character varying(256)) as "scheduler_name", cast(null as character varying(256)) as "shift_id", cast(null as character varying(256)) as "slot_id", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "job_id", 
    
    cast('2026-03-02 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(7.5 as DOUBLE)
 as "scheduled_hours", cast(null as HUGEINT) as "unpaid_break_minutes", cast(null as BOOLEAN) as "is_published", cast(null as DATE) as "local_date", 
    
    cast(False as BOOLEAN)
 as "is_deleted", cast(null as TIMESTAMP WITH TIME ZONE) as "deleted_at"
union all
select cast(null as character varying(256)) as "shift_assignment_key", cast(null as BIGINT) as "scheduler_id", cast(null as character varying(256)) as "scheduler_name", cast(null as character varying(256)) as "shift_id", cast(null as character varying(256)) as "slot_id", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "job_id", 
    
    cast('2026-03-08 03:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", 
    
    cast('America/New_York' as character varying)
 as "timezone", 
    
    cast(8 as DOUBLE)
 as "scheduled_hours", cast(null as HUGEINT) as "unpaid_break_minutes", cast(null as BOOLEAN) as "is_published", cast(null as DATE) as "local_date", 
    
    cast(False as BOOLEAN)
 as "is_deleted", cast(null as TIMESTAMP WITH TIME ZONE) as "deleted_at"
union all
select cast(null as character varying(256)) as "shift_assignment_key", cast(null as BIGINT) as "scheduler_id", cast(null as character varying(256)) as "scheduler_name", cast(null as character varying(256)) as "shift_id", cast(null as character varying(256)) as "slot_id", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "job_id", 
    
    cast('2026-03-02 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(4 as DOUBLE)
 as "scheduled_hours", cast(null as HUGEINT) as "unpaid_break_minutes", cast(null as BOOLEAN) as "is_published", cast(null as DATE) as "local_date", 
    
    cast(False as BOOLEAN)
 as "is_deleted", cast(null as TIMESTAMP WITH TIME ZONE) as "deleted_at"
union all
select cast(null as character varying(256)) as "shift_assignment_key", cast(null as BIGINT) as "scheduler_id", cast(null as character varying(256)) as "scheduler_name", cast(null as character varying(256)) as "shift_id", cast(null as character varying(256)) as "slot_id", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BOOLEAN) as "is_open_shift", cast(null as character varying(256)) as "title", cast(null as character varying(256)) as "job_id", 
    
    cast('2026-03-02 14:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "starts_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ends_at", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(6 as DOUBLE)
 as "scheduled_hours", cast(null as HUGEINT) as "unpaid_break_minutes", cast(null as BOOLEAN) as "is_published", cast(null as DATE) as "local_date", 
    
    cast(True as BOOLEAN)
 as "is_deleted", cast(null as TIMESTAMP WITH TIME ZONE) as "deleted_at"