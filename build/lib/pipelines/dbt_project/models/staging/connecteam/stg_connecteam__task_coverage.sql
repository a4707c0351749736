-- One row per task board whose tasks a sync listed completely, with when that run began: the
-- API's rows of the board's tasks are as of pulled_at.

with

source as (

    select * from {{ typed_source('connecteam', 'task_coverage') }}

),

renamed as (

    select
        task_board_id,
        pulled_at,
        untypable_value_count

    from source

)

select * from renamed
