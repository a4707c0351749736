-- One row per time-off request, every status.
{% set columns = {
    'id': 'varchar', 'policy_type_id': 'varchar', 'user_id': 'bigint', 'is_all_day': 'boolean',
    'start_date': 'date', 'end_date': 'date', 'timezone': 'timezone', 'status': 'varchar',
    'duration_units': 'varchar', 'duration_amount': 'double'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'time_off_requests', columns) }}

),

renamed as (

    select
        untypable_value_count,
        id as time_off_request_id,
        policy_type_id,
        user_id,
        is_all_day,
        start_date,
        end_date,
        timezone,
        status,
        duration_units,
        duration_amount

    from source

)

select * from renamed
