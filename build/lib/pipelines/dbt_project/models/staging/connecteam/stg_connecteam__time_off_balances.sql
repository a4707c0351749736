-- One row per user x time-off policy x sync day: the balance the provider reported that day
-- (the day's last sync wins).

with

source as (

    select * from {{ typed_source('connecteam', 'time_off_balances') }}

),

renamed as (

    select
        balance_key,
        policy_type_id,
        policy_id,
        user_id,
        units,
        balance,
        as_of_date,
        synced_at,
        untypable_value_count

    from source

)

select * from renamed
