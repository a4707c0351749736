-- One row per time activity from the API (shift punch, manual break, time off); activities the
-- provider stopped returning inside a re-pulled window are kept with is_deleted.
{% set columns = {
    'id': 'varchar', 'time_clock_id': 'bigint', 'user_id': 'bigint', 'activity_type': 'varchar',
    'start_timestamp': 'bigint', 'start_timezone': 'timezone', 'end_timestamp': 'bigint',
    'end_timezone': 'timezone', 'job_id': 'varchar', 'sub_job_id': 'varchar',
    'scheduler_shift_id': 'varchar', 'manual_break_id': 'varchar', 'policy_type_id': 'varchar',
    'is_all_day': 'boolean', 'duration_value': 'double', 'duration_units': 'varchar',
    'is_auto_clock_out': 'boolean', 'auto_clock_out_mode': 'varchar', 'modified_at': 'bigint',
    'is_deleted': 'boolean'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'time_activities', columns) }}

),

renamed as (

    select
        untypable_value_count,
        id as time_activity_id,
        time_clock_id,
        user_id,
        activity_type,
        {{ epoch_to_utc('start_timestamp') }} as started_at,
        start_timezone,
        {{ epoch_to_utc('end_timestamp') }} as ended_at,
        end_timezone,
        job_id,
        sub_job_id,
        scheduler_shift_id,
        manual_break_id,
        policy_type_id,
        is_all_day,
        duration_value,
        duration_units,
        coalesce(is_auto_clock_out, false) as is_auto_clock_out,
        auto_clock_out_mode,
        {{ epoch_to_utc('modified_at') }} as modified_at,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
