-- One row per time-activity webhook event (clock in/out, auto clock out, admin add/edit/delete,
-- approved, declined and auto-approved requests, user requests).

with

source as (

    select * from {{ source('webhooks', 'events') }}
    where family = 'time_activity'

),

renamed as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        received_at,
        activity_type,
        try_cast(payload ->> 'userId' as bigint) as user_id,
        try_cast(payload ->> 'timeClockId' as bigint) as time_clock_id,
        coalesce(
            payload ->> 'timeActivityId', payload -> 'timeActivity' ->> 'id'
        ) as time_activity_id,
        {{ epoch_to_utc("payload -> 'timeActivity' -> 'start' ->> 'timestamp'") }} as started_at,
        {{ valid_timezone("payload -> 'timeActivity' -> 'start' ->> 'timezone'") }}
            as start_timezone,
        {{ epoch_to_utc("payload -> 'timeActivity' -> 'end' ->> 'timestamp'") }} as ended_at,
        {{ valid_timezone("payload -> 'timeActivity' -> 'end' ->> 'timezone'") }}
            as end_timezone,
        payload -> 'timeActivity' -> 'end' -> 'source' ->> 'type' as end_source_type,
        payload -> 'timeActivity' -> 'end' -> 'source' ->> 'mode' as auto_clock_out_mode,
        payload -> 'timeActivity' ->> 'jobId' as job_id,
        payload -> 'timeActivity' ->> 'schedulerShiftId' as scheduler_shift_id,
        coalesce(try_cast(payload -> 'timeActivity' ->> 'isAutoClockOut' as boolean), false)
        or event_type = 'auto_clock_out' as is_auto_clock_out,
        case
            when event_type in (
                'admin_delete', 'admin_approved_delete_request', 'auto_approved_delete_request',
                'admin_declined_request'
            ) then 'delete'
            when event_type in ('user_add_request', 'user_edit_request', 'user_delete_request')
                then 'request'
            when event_type in (
                'admin_declined_add_request', 'admin_declined_edit_request',
                'admin_declined_delete_request'
            ) then 'declined'
            else 'upsert'
        end as state_effect

    from source

)

select * from renamed
