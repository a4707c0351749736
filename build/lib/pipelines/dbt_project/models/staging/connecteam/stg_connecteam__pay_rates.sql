-- One row per user x effective date x rate: the default rate, each resource (job) rate and each
-- sub-resource (sub-job) rate. A rate the provider stopped returning is kept, flagged
-- is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'pay_rates') }}

),

renamed as (

    select
        pay_rate_key,
        user_id,
        effective_date,
        rate_type,
        rate_kind,
        resource_id,
        sub_resource_id,
        rate,
        created_by,
        created_at,
        modified_at,
        deleted_at,
        untypable_value_count,
        coalesce(is_default_rate_enabled, false) as is_default_rate_enabled,
        coalesce(is_resource_rate_enabled, false) as is_resource_rate_enabled,
        coalesce(is_using_default_rate, false) as is_using_default_rate,
        coalesce(is_using_parent_rate, false) as is_using_parent_rate,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
