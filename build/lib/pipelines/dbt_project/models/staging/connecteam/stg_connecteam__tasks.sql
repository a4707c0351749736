-- One row per task of every board and status.
-- A record the provider stopped returning is kept, flagged is_deleted; deleted_at is when the
-- sync found it gone.

with

source as (

    select * from {{ typed_source('connecteam', 'tasks') }}

),

renamed as (

    select
        id as task_id,
        task_board_id,
        title as task_title,
        status,
        type as task_type,
        start_time as starts_at,
        due_date as due_at,
        deleted_at,
        untypable_value_count,
        coalesce(is_archived, false) as is_archived,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
