-- One row per time-off request, every status.
-- A record the provider stopped returning is kept, flagged is_deleted; deleted_at is when the
-- sync found it gone.

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
        start_time,
        end_time,
        employee_note,
        manager_note,
        timezone,
        status,
        duration_units,
        duration_amount,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
