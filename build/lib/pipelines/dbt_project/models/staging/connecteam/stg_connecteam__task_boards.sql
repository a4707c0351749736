-- One row per task board.
-- A record the provider stopped returning is kept, flagged is_deleted; deleted_at is when the
-- sync found it gone.

with

source as (

    select * from {{ typed_source('connecteam', 'task_boards') }}

),

renamed as (

    select
        id as task_board_id,
        name as task_board_name,
        is_archived,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
