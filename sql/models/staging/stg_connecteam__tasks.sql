-- One row per task of every board and status.
{% set columns = {
    'id': 'varchar', 'task_board_id': 'bigint', 'title': 'varchar', 'status': 'varchar',
    'type': 'varchar', 'start_time': 'bigint', 'due_date': 'bigint', 'is_archived': 'boolean'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'tasks', columns) }}

),

renamed as (

    select
        untypable_value_count,
        id as task_id,
        task_board_id,
        title as task_title,
        status,
        type as task_type,
        {{ epoch_to_utc('start_time') }} as starts_at,
        {{ epoch_to_utc('due_date') }} as due_at,
        coalesce(is_archived, false) as is_archived

    from source

)

select * from renamed
