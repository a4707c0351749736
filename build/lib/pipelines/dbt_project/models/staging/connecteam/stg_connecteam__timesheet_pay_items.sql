-- One row per time clock x user x day x pay item: the timesheet's payItems unnested (items
-- that are not objects are skipped). The provider aggregates a day's pay per pay rule: hours,
-- the rule, the rate it applied and the pay (overtime and pay rules included).

with

timesheets as (

    select * from {{ typed_source('connecteam', 'timesheets') }}

),

unnested as (

    select
        timesheets.id as timesheet_day_key,
        timesheets.time_clock_id,
        timesheets.user_id,
        timesheets.date as work_date,
        coalesce(timesheets.is_deleted, false) as is_deleted,
        timesheets.untypable_value_count,
        items.pay_item,
        items.item_number
    from timesheets
    cross join
        lateral {{ json_items('timesheets.pay_items') }}
        with ordinality as items (pay_item, item_number)

),

objects as (

    select * from unnested
    where {{ is_json_object('pay_item') }}

),

renamed as (

    select
        timesheet_day_key || ':' || cast(item_number as varchar) as pay_item_key,
        timesheet_day_key,
        time_clock_id,
        user_id,
        work_date,
        item_number,
        {{ json_field('hours', 'pay_item') }} as hours,
        {{ json_field('pay_rule_id', 'pay_item') }} as pay_rule_id,
        {{ json_field('pay_rule_code', 'pay_item') }} as pay_rule_code,
        {{ json_field('pay_rule_type', 'pay_item') }} as pay_rule_type,
        {{ json_field('actual_pay_rate', 'pay_item') }} as actual_pay_rate,
        {{ json_field('total_pay', 'pay_item') }} as total_pay,
        is_deleted,
        untypable_value_count + {{ untypable_item_fields('pay_item') }}
            as untypable_value_count

    from objects

)

select * from renamed
