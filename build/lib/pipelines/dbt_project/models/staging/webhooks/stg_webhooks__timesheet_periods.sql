-- One row per timesheet-period webhook event (user timesheet submitted/unsubmitted/approved/
-- reopened, admin day locked/unlocked).

with

source as (

    select * from {{ typed_source('webhooks', 'events') }}
    where family = 'timesheet_period'

),

renamed as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        received_at,
        {{ event_time_implausible() }} as is_event_time_implausible,
        user_id,
        time_clock_id,
        period_start,
        period_end,
        locked_date,
        untypable_value_count,
        case event_type
            when 'user_timesheet_submitted' then 'submitted'
            when 'user_timesheet_approved' then 'approved'
            when 'user_timesheet_unsubmitted' then 'open'
            when 'user_timesheet_reopened' then 'open'
        end as resulting_status

    from source

)

select * from renamed
