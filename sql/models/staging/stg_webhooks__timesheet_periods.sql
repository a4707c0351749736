-- One row per timesheet-period webhook event (user timesheet submitted/unsubmitted/approved/
-- reopened, admin day locked/unlocked).

with

source as (

    select * from {{ source('webhooks', 'events') }}
    where family = 'timesheet_period'

),

renamed as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        received_at,
        try_cast(payload ->> 'userId' as bigint) as user_id,
        try_cast(payload ->> 'timeClockId' as bigint) as time_clock_id,
        try_cast(payload -> 'data' ->> 'periodStart' as date) as period_start,
        try_cast(payload -> 'data' ->> 'periodEnd' as date) as period_end,
        try_cast(payload -> 'data' ->> 'date' as date) as locked_date,
        case event_type
            when 'user_timesheet_submitted' then 'submitted'
            when 'user_timesheet_approved' then 'approved'
            when 'user_timesheet_unsubmitted' then 'open'
            when 'user_timesheet_reopened' then 'open'
        end as resulting_status

    from source

)

select * from renamed
