{%- set columns = {'id': 'bigint', 'name': 'varchar', 'is_archived': 'boolean'} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'task_boards', columns) }}

),

renamed as (

    select
        untypable_value_count,
        id as task_board_id,
        name as task_board_name,
        is_archived

    from source

)

select * from renamed
