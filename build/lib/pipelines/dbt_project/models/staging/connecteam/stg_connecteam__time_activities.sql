-- One row per time activity from the API (shift punch, manual break, time off); activities the
-- provider stopped returning inside a re-pulled window are kept with is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'time_activities') }}

),

renamed as (

    select
        id as time_activity_id,
        time_clock_id,
        user_id,
        activity_type,
        start_timestamp as started_at,
        start_timezone,
        end_timestamp as ended_at,
        end_timezone,
        job_id,
        sub_job_id,
        scheduler_shift_id,
        manual_break_id,
        policy_type_id,
        is_all_day,
        duration_value,
        duration_units,
        auto_clock_out_mode,
        modified_at,
        untypable_value_count,
        coalesce(is_auto_clock_out, false) as is_auto_clock_out,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
