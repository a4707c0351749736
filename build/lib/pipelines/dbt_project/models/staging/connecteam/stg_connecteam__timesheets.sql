-- Timesheet totals: one row per time clock x user x day (decimal hours).

with

source as (

    select * from {{ typed_source('connecteam', 'timesheets') }}

),

renamed as (

    select
        id as timesheet_day_key,
        time_clock_id,
        user_id,
        date as work_date,
        daily_total_hours,
        daily_total_work_hours,
        daily_total_paid_break_hours,
        daily_total_unpaid_break_hours,
        is_approved,
        is_submitted,
        is_locked,
        daily_scheduled_hours,
        daily_scheduled_difference_hours,
        daily_scheduled_shifts,
        daily_scheduled_details is not null as has_scheduled_details,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
