-- One row per time-activity webhook event (clock in/out, auto clock out, admin add/edit/delete,
-- approved, declined and auto-approved requests, user requests).

with

source as (

    select * from {{ typed_source('webhooks', 'events') }}
    where family = 'time_activity'

),

renamed as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        received_at,
        {{ event_time_implausible() }} as is_event_time_implausible,
        activity_type,
        user_id,
        time_clock_id,
        started_at,
        start_timezone,
        ended_at,
        end_timezone,
        end_source_type,
        auto_clock_out_mode,
        job_id,
        sub_job_id,
        manual_break_id,
        scheduler_shift_id,
        duration_value,
        duration_units,
        untypable_value_count,
        coalesce(time_activity_key, nested_time_activity_key) as time_activity_id,
        coalesce(is_auto_clock_out, false) or event_type = 'auto_clock_out' as is_auto_clock_out,
        case
            when event_type in (
                'admin_delete', 'admin_approved_delete_request', 'auto_approved_delete_request'
            ) then 'delete'
            when event_type in ('user_add_request', 'user_edit_request', 'user_delete_request')
                then 'request'
            when event_type in (
                'admin_declined_request', 'admin_declined_add_request',
                'admin_declined_edit_request', 'admin_declined_delete_request'
            ) then 'declined'
            else 'upsert'
        end as state_effect

    from source

)

select * from renamed
