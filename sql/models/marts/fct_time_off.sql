-- User x day off x policy type: approved time off only, one row per calendar day a request
-- covers; the request's amount is spread evenly over its days (in its own units).

with

approved as (

    select * from {{ ref('stg_connecteam__time_off_requests') }}
    where status = 'approved'

),

days as (

    select
        user_id,
        policy_type_id,
        time_off_request_id,
        duration_units,
        duration_amount / (datediff('day', start_date, end_date) + 1) as amount_per_day,
        cast(unnest(generate_series(
            try_cast(start_date as timestamp), try_cast(end_date as timestamp), interval 1 day
        )) as date) as day_off
    from approved

),

final as (

    select
        user_id,
        day_off,
        policy_type_id,
        any_value(duration_units) as units,
        round(sum(amount_per_day), 4) as amount,
        count(*) as request_count,
        {{ readable_key(['user_id', 'day_off', 'policy_type_id']) }} as time_off_day_key
    from days
    group by user_id, day_off, policy_type_id

)

select * from final
