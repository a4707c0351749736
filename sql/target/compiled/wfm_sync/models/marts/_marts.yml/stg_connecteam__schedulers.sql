
-- Fixture for stg_connecteam__schedulers
select 
    
    cast(9000 as BIGINT)
 as "scheduler_id", 
    
    cast('Kitchen' as character varying)
 as "scheduler_name", cast(null as character varying(256)) as "timezone", cast(null as BOOLEAN) as "is_archived"