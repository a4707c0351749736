-- User x time-off policy x as-of date: the balance each sync day read, the change since the
-- previous one, and the approved time off of that policy type taken in between (fct_time_off,
-- days after the previous as-of date up to this one; the first as-of date counts that day only).

with

balances as (

    select * from {{ ref('stg_connecteam__time_off_balances') }}
    where user_id is not null and as_of_date is not null

),

policy_types as (

    select
        policy_type_id,
        policy_type_name
    from {{ ref('stg_connecteam__time_off_policy_types') }}

),

ordered as (

    select
        balances.*,
        lag(balances.as_of_date) over (
            partition by balances.policy_type_id, balances.policy_id, balances.user_id
            order by balances.as_of_date
        ) as previous_as_of_date,
        lag(balances.balance) over (
            partition by balances.policy_type_id, balances.policy_id, balances.user_id
            order by balances.as_of_date
        ) as previous_balance
    from balances

),

taken as (

    select
        ordered.balance_key,
        sum(time_off.amount) filter (where time_off.units = 'hours') as hours_taken,
        sum(time_off.amount) filter (where time_off.units = 'days') as days_taken
    from ordered
    inner join {{ ref('fct_time_off') }} as time_off
        on
            ordered.user_id = time_off.user_id
            and ordered.policy_type_id = time_off.policy_type_id
            and ordered.as_of_date >= time_off.day_off
            and time_off.day_off > coalesce(ordered.previous_as_of_date, ordered.as_of_date - 1)
    group by ordered.balance_key

),

final as (

    select
        ordered.balance_key as time_off_balance_key,
        ordered.user_id,
        ordered.policy_type_id,
        policy_types.policy_type_name,
        ordered.policy_id,
        ordered.as_of_date,
        ordered.units,
        ordered.balance,
        ordered.previous_as_of_date,
        ordered.synced_at,
        {{ round_to('ordered.balance - ordered.previous_balance', 4) }} as balance_change,
        coalesce(taken.hours_taken, 0) as hours_taken,
        coalesce(taken.days_taken, 0) as days_taken
    from ordered
    left join policy_types on ordered.policy_type_id = policy_types.policy_type_id
    left join taken on ordered.balance_key = taken.balance_key

)

select * from final
