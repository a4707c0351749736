-- One row per time clock.

with

source as (

    select * from {{ typed_source('connecteam', 'time_clocks') }}

),

renamed as (

    select
        id as time_clock_id,
        name as time_clock_name,
        is_archived,
        untypable_value_count

    from source

)

select * from renamed
