-- Timesheet totals: one row per time clock x user x day (decimal hours).
{% set columns = {
    'id': 'varchar', 'time_clock_id': 'bigint', 'user_id': 'bigint', 'date': 'date',
    'daily_total_hours': 'double', 'daily_total_work_hours': 'double',
    'daily_total_paid_break_hours': 'double', 'daily_total_unpaid_break_hours': 'double',
    'is_approved': 'boolean', 'is_submitted': 'boolean', 'is_locked': 'boolean',
    'is_deleted': 'boolean'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'timesheets', columns) }}

),

renamed as (

    select
        untypable_value_count,
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
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
