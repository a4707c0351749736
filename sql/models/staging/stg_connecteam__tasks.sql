-- One row per task of every board and status.

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
        untypable_value_count,
        coalesce(is_archived, false) as is_archived

    from source

)

select * from renamed
