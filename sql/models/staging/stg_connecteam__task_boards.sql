-- One row per task board.

with

source as (

    select * from {{ typed_source('connecteam', 'task_boards') }}

),

renamed as (

    select
        id as task_board_id,
        name as task_board_name,
        is_archived,
        untypable_value_count

    from source

)

select * from renamed
