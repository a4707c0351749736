{%- set columns = {
    'scheduler_id': 'bigint', 'id': 'varchar', 'shift_id': 'varchar', 'title': 'varchar',
    'color': 'varchar', 'timezone': 'timezone', 'is_published': 'boolean',
    'is_open_shift': 'boolean', 'job_id': 'varchar', 'start_time': 'bigint', 'end_time': 'bigint',
    'creation_time': 'bigint', 'update_time': 'bigint', 'deleted_at': 'bigint',
    'is_deleted': 'boolean', 'breaks': 'json', 'assigned_user_ids': 'json'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'shifts', columns) }}

),

break_items as (

    select
        scheduler_id,
        id,
        unnest(cast(breaks as json[])) as break_item
    from source
    where json_type(breaks) = 'ARRAY'

),

unpaid_breaks as (

    select
        scheduler_id,
        id,
        sum(try_cast(break_item ->> 'duration' as integer)) as unpaid_break_minutes
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
                when
                    json_type(source.assigned_user_ids) = 'ARRAY'
                    and json_array_length(source.assigned_user_ids) > 0
                    then try_cast(source.assigned_user_ids as bigint[])
                else [try_cast(null as bigint)]
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
        assignments.untypable_value_count,
        assignments.is_published,
        coalesce(assignments.shift_id, split_part(assignments.id, ':', 1)) as shift_id,
        coalesce(assignments.is_open_shift, false) as is_open_shift,
        assignments.job_id,
        {{ epoch_to_utc('assignments.start_time') }} as starts_at,
        {{ epoch_to_utc('assignments.end_time') }} as ends_at,
        {{ epoch_to_utc('assignments.creation_time') }} as created_at,
        {{ epoch_to_utc('assignments.update_time') }} as updated_at,
        {{ epoch_to_utc('assignments.deleted_at') }} as deleted_at,
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
