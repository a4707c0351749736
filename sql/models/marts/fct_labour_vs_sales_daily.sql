-- One row per sales location and day: the labour tied to the location that day (hours and
-- cost of fct_labour_cost_daily), the location's sales (stg_connecteam__daily_sales) and labour
-- cost as a percentage of sales.
--
-- How labour is tied to a location (the provider links no punch to a sales location): a user's
-- labour of a local day counts at a location when the user belongs that day to the smart group
-- named as the location (names compared trimmed and case-insensitive; bridge_user_groups); a user
-- in the groups of several locations that day is split between them equally. Days before the
-- first sync that saw a user take the groups of that first sync.

with

locations as (

    select * from {{ ref('stg_connecteam__sales_locations') }}

),

location_groups as (

    select
        locations.location_id,
        location_group.group_id
    from locations
    inner join {{ ref('dim_groups') }} as location_group
        on lower(trim(locations.location_name)) = lower(trim(location_group.group_name))
    where not location_group.is_deleted

),

memberships as (

    select
        bridge.user_id,
        location_groups.location_id,
        case
            when not bridge.is_from_first_sync then cast(bridge.valid_from as date)
        end as from_date,
        cast(bridge.valid_to as date) as to_date
    from {{ ref('bridge_user_groups') }} as bridge
    inner join location_groups on bridge.group_id = location_groups.group_id

),

labour as (

    select
        user_id,
        local_date,
        sum(worked_hours) as worked_hours,
        sum(paid_hours) as paid_hours,
        sum(labour_cost) as labour_cost,
        bool_or(labour_cost is null and paid_hours > 0) as has_uncosted_hours
    from {{ ref('fct_labour_cost_daily') }}
    where local_date is not null
    group by user_id, local_date

),

tied as (

    select
        labour.user_id,
        labour.local_date,
        memberships.location_id,
        labour.worked_hours,
        labour.paid_hours,
        labour.labour_cost,
        labour.has_uncosted_hours,
        count(*) over (partition by labour.user_id, labour.local_date) as location_count
    from labour
    inner join memberships
        on
            labour.user_id = memberships.user_id
            and (memberships.from_date is null or labour.local_date >= memberships.from_date)
            and (memberships.to_date is null or labour.local_date < memberships.to_date)

),

-- each user's share at each location, rounded before it is summed (hours to 4 decimals, cost
-- to cents): a sum of half-cents would round differently on DuckDB and PostgreSQL
shares as (

    select
        user_id,
        local_date,
        location_id,
        has_uncosted_hours,
        {{ round_to('worked_hours / location_count', 4) }} as worked_hours,
        {{ round_to('paid_hours / location_count', 4) }} as paid_hours,
        {{ round_to('labour_cost / location_count', 2) }} as labour_cost
    from tied

),

labour_by_location as (

    select
        location_id,
        local_date,
        count(distinct user_id) as user_count,
        sum(worked_hours) as worked_hours,
        sum(paid_hours) as paid_hours,
        sum(labour_cost) as labour_cost,
        bool_or(has_uncosted_hours) as has_uncosted_hours
    from shares
    group by location_id, local_date

),

sales as (

    select
        location_id,
        sales_date,
        total_sales,
        projected_sales
    from {{ ref('stg_connecteam__daily_sales') }}
    where not is_deleted

),

days as (

    select
        coalesce(labour_by_location.location_id, sales.location_id) as location_id,
        coalesce(labour_by_location.local_date, sales.sales_date) as local_date,
        coalesce(labour_by_location.user_count, 0) as user_count,
        coalesce(labour_by_location.worked_hours, 0) as worked_hours,
        coalesce(labour_by_location.paid_hours, 0) as paid_hours,
        coalesce(labour_by_location.labour_cost, 0) as labour_cost,
        coalesce(labour_by_location.has_uncosted_hours, false) as has_uncosted_hours,
        sales.total_sales,
        sales.projected_sales
    from labour_by_location
    full outer join sales
        on
            labour_by_location.location_id = sales.location_id
            and labour_by_location.local_date = sales.sales_date

)

select
    days.location_id,
    locations.location_name,
    days.local_date,
    days.user_count,
    {{ round_to('days.worked_hours', 4) }} as worked_hours,
    {{ round_to('days.paid_hours', 4) }} as paid_hours,
    {{ round_to('days.labour_cost', 2) }} as labour_cost,
    days.has_uncosted_hours,
    days.total_sales,
    days.projected_sales,
    {{ round_to('100 * days.labour_cost / nullif(days.total_sales, 0)', 2) }}
        as labour_pct_of_sales,
    {{ currency_literal() }} as currency,
    {{ readable_key(['days.location_id', 'days.local_date']) }} as location_day_key
from days
left join locations on days.location_id = locations.location_id
