
-- Fixture for stg_webhooks__timesheet_periods
select cast(null as character varying(256)) as "event_key", cast(null as character varying(256)) as "event_type", cast(null as TIMESTAMP WITH TIME ZONE) as "event_at", cast(null as TIMESTAMP WITH TIME ZONE) as "received_at", 
    
    cast(null as BIGINT)
 as "user_id", cast(null as BIGINT) as "time_clock_id", cast(null as DATE) as "period_start", cast(null as DATE) as "period_end", cast(null as DATE) as "locked_date", cast(null as character varying(256)) as "resulting_status"