-- User x time clock x day: the provider's own timesheet figures (GET
-- /time-clock/v1/time-clocks/{timeClockId}/timesheet): its daily totals (work, paid and unpaid
-- break hours, total hours), approval flags, planned hours (dailyScheduledDetails) and pay (the
-- day's payItems summed: hours, and totalPay with overtime and pay rules included). Days the
-- provider stopped returning are left out.
-- Rebuilt in full on every build (a table read as int_user_days__inputs' timesheet inputs).

{{ config(materialized='table') }}

with

days as (

    select * from {{ ref('stg_connecteam__timesheets') }}
    where not is_deleted

),

pay_items as (

    select * from {{ ref('stg_connecteam__timesheet_pay_items') }}
    where not is_deleted

),

pay as (

    select
        timesheet_day_key,
        count(*) as pay_item_count,
        sum(hours) as pay_item_hours,
        sum(total_pay) as total_pay,
        count(*) filter (where total_pay is null) as pay_items_without_pay
    from pay_items
    group by timesheet_day_key

),

final as (

    select
        days.timesheet_day_key,
        days.time_clock_id,
        days.user_id,
        days.work_date,
        days.daily_total_hours as total_hours,
        days.daily_total_work_hours as work_hours,
        days.daily_total_paid_break_hours as paid_break_hours,
        days.daily_total_unpaid_break_hours as unpaid_break_hours,
        coalesce(days.is_approved, false) as is_approved,
        coalesce(days.is_submitted, false) as is_submitted,
        coalesce(days.is_locked, false) as is_locked,
        days.daily_scheduled_hours as scheduled_hours,
        days.daily_scheduled_difference_hours as scheduled_difference_hours,
        days.daily_scheduled_shifts as scheduled_shift_count,
        coalesce(pay.pay_item_count, 0) as pay_item_count,
        {{ round_to('pay.pay_item_hours', 4) }} as pay_item_hours,
        -- the day's pay only when every item states it
        case
            when pay.pay_item_count > 0 and pay.pay_items_without_pay = 0
                then {{ round_to('pay.total_pay', 2) }}
        end as total_pay,
        coalesce(pay.pay_item_count > 0 and pay.pay_items_without_pay = 0, false)
            as has_total_pay
    from days
    left join pay on days.timesheet_day_key = pay.timesheet_day_key

)

select * from final
