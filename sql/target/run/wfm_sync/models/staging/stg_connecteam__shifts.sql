
  
  create view "warehouse"."staging"."stg_connecteam__shifts__dbt_tmp" as (
    with

source as (

    select * from "warehouse"."connecteam"."shifts"

),

break_items as (

    select
        scheduler_id,
        id,
        unnest(cast(breaks as json[])) as break_item
    from source
    where breaks is not null

),

unpaid_breaks as (

    select
        scheduler_id,
        id,
        sum(cast(break_item ->> 'duration' as integer)) as unpaid_break_minutes
    from break_items
    where break_item ->> 'type' = 'unpaid'
    group by scheduler_id, id

),

assignments as (

    -- V1 rows carry one assigned user (or none: an open shift); a row with several users
    -- (V2 shape) becomes one row per user.
    select
        source.*,
        unnest(
            case
                when coalesce(json_array_length(source.assigned_user_ids), 0) > 0
                    then cast(source.assigned_user_ids as bigint[])
                else [cast(null as bigint)]
            end
        ) as assigned_user_id
    from source

),

renamed as (

    select
        assignments.scheduler_id,
        assignments.id as slot_id,
        assignments.assigned_user_id as user_id,
        assignments.title,
        assignments.color,
        assignments.timezone,
        assignments.is_published,
        coalesce(assignments.shift_id, split_part(assignments.id, ':', 1)) as shift_id,
        coalesce(assignments.is_open_shift, false) as is_open_shift,
        job_id as job_id,
        to_timestamp(nullif(cast(assignments.start_time as bigint), 0)) as starts_at,
        to_timestamp(nullif(cast(assignments.end_time as bigint), 0)) as ends_at,
        to_timestamp(nullif(cast(creation_time as bigint), 0)) as created_at,
        to_timestamp(nullif(cast(update_time as bigint), 0)) as updated_at,
        to_timestamp(nullif(cast(assignments.deleted_at as bigint), 0)) as deleted_at,
        coalesce(assignments.is_deleted, false) as is_deleted,
        (assignments.end_time - assignments.start_time) / 60.0 as scheduled_minutes_gross,
        coalesce(unpaid_breaks.unpaid_break_minutes, 0) as unpaid_break_minutes

    from assignments
    left join unpaid_breaks
        on
            assignments.scheduler_id = unpaid_breaks.scheduler_id
            and assignments.id = unpaid_breaks.id

),

final as (

    select
        *,
        cast(scheduler_id as varchar) || '/' || shift_id || '/'
        || coalesce(cast(user_id as varchar), 'open') as shift_assignment_key,
        round((scheduled_minutes_gross - unpaid_break_minutes) / 60.0, 4) as scheduled_hours

    from renamed

)

select * from final
  );
