-- One row per pay rule policy. A policy the provider stopped returning is kept, flagged
-- is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'pay_rule_policies') }}

),

renamed as (

    select
        id as pay_rule_policy_id,
        name as pay_rule_policy_name,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
