-- One row per time-off request, every status.

with

source as (

    select * from {{ typed_source('connecteam', 'time_off_requests') }}

),

renamed as (

    select
        id as time_off_request_id,
        policy_type_id,
        user_id,
        is_all_day,
        start_date,
        end_date,
        timezone,
        status,
        duration_units,
        duration_amount,
        untypable_value_count

    from source

)

select * from renamed
