-- One row per onboarding pack (the steps a new hire works through).
-- A record the provider stopped returning is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'onboarding_packs') }}

),

renamed as (

    select
        id as pack_id,
        name as pack_name,
        description,
        is_default,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
