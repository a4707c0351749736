
-- Fixture for fct_time_activities
select cast(null as character varying(256)) as "time_activity_id", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('shift' as character varying)
 as "activity_type", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", 
    
    cast('2026-03-02 08:55:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as BOOLEAN) as "is_auto_clock_out", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "last_event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "last_event_at", cast(null as BIGINT) as "event_count", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(False as BOOLEAN)
 as "is_open_punch", 
    
    cast(8.1667 as DOUBLE)
 as "duration_hours"
union all
select cast(null as character varying(256)) as "time_activity_id", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('manual_break' as character varying)
 as "activity_type", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", 
    
    cast('2026-03-02 12:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as BOOLEAN) as "is_auto_clock_out", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "last_event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "last_event_at", cast(null as BIGINT) as "event_count", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(False as BOOLEAN)
 as "is_open_punch", 
    
    cast(0.5 as DOUBLE)
 as "duration_hours"
union all
select cast(null as character varying(256)) as "time_activity_id", 
    
    cast(1 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('shift' as character varying)
 as "activity_type", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", 
    
    cast('2026-03-08 03:10:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as BOOLEAN) as "is_auto_clock_out", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "last_event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "last_event_at", cast(null as BIGINT) as "event_count", 
    
    cast('America/New_York' as character varying)
 as "timezone", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(False as BOOLEAN)
 as "is_open_punch", 
    
    cast(7.8333 as DOUBLE)
 as "duration_hours"
union all
select cast(null as character varying(256)) as "time_activity_id", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('shift' as character varying)
 as "activity_type", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", 
    
    cast('2026-03-02 09:00:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as BOOLEAN) as "is_auto_clock_out", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "last_event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "last_event_at", cast(null as BIGINT) as "event_count", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(False as BOOLEAN)
 as "is_open_punch", 
    
    cast(2 as DOUBLE)
 as "duration_hours"
union all
select cast(null as character varying(256)) as "time_activity_id", 
    
    cast(2 as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", 
    
    cast('shift' as character varying)
 as "activity_type", cast(null as character varying(256)) as "job_id", cast(null as character varying(256)) as "scheduler_shift_id", 
    
    cast('2026-03-02 11:30:00+00' as TIMESTAMP WITH TIME ZONE)
 as "started_at", cast(null as TIMESTAMP WITH TIME ZONE) as "ended_at", cast(null as BOOLEAN) as "is_auto_clock_out", cast(null as character varying(256)) as "auto_clock_out_mode", cast(null as character varying(256)) as "last_event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "last_event_at", cast(null as BIGINT) as "event_count", 
    
    cast('Europe/London' as character varying)
 as "timezone", 
    
    cast(False as BOOLEAN)
 as "is_deleted", 
    
    cast(True as BOOLEAN)
 as "is_open_punch", 
    
    cast(null as DOUBLE)
 as "duration_hours"