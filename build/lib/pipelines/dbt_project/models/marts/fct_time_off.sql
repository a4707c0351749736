-- User x day off x policy type x units: approved time off only (a request the provider stopped
-- returning, is_deleted, is left out), one row per calendar day a request covers; the request's
-- amount is spread evenly over its days (in its own units). A request whose days cannot be
-- listed (a date missing or not a date, the end before the start, or more than
-- var('time_off_max_request_days') days) is kept as one row with day_off null carrying its
-- whole amount. Hours and days are never added together: the units are part of the grain, so
-- a policy type whose requests came in both units gives a row per unit.

with

approved as (

    select
        *,
        end_date - start_date + 1 as day_count
    from {{ ref('stg_connecteam__time_off_requests') }}
    where
        status = 'approved'
        and is_deleted is not true
        -- a request without a user or policy type has no place in this grain: it stays in
        -- staging, its untypable value counted
        and user_id is not null
        and policy_type_id is not null

),

spans as (

    select
        *,
        coalesce(day_count between 1 and {{ var('time_off_max_request_days') }}, false)
            as has_listable_days
    from approved

),

listed_days as (

    select
        spans.user_id,
        spans.policy_type_id,
        spans.time_off_request_id,
        spans.duration_units,
        {{ safe_divide('spans.duration_amount', 'spans.day_count') }} as amount_per_day,
        cast(calendar_days.day_off as date) as day_off
    from spans
    cross join
        lateral generate_series(
            cast(spans.start_date as timestamp), cast(spans.end_date as timestamp), interval '1 day'
        ) as calendar_days (day_off)
    where spans.has_listable_days

),

unlisted as (

    select
        user_id,
        policy_type_id,
        time_off_request_id,
        duration_units,
        duration_amount as amount_per_day,
        cast(null as date) as day_off
    from spans
    where not has_listable_days

),

days as (

    select * from listed_days
    union all
    select * from unlisted

),

final as (

    select
        user_id,
        day_off,
        policy_type_id,
        duration_units as units,
        {{ round_to('sum(amount_per_day)', 4) }} as amount,
        count(*) as request_count,
        {{ readable_key([
            'user_id',
            "coalesce(cast(day_off as varchar), 'unlisted')",
            'policy_type_id',
            "coalesce(duration_units, 'unknown-units')",
        ]) }} as time_off_day_key
    from days
    group by user_id, day_off, policy_type_id, duration_units

)

select * from final
