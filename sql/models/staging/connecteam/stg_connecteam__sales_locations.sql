-- One row per sales location of the account (active or not).
-- A record the provider stopped returning is kept, flagged is_deleted; deleted_at is when the
-- sync found it gone.

with

source as (

    select * from {{ typed_source('connecteam', 'sales_locations') }}

),

renamed as (

    select
        id as location_id,
        name as location_name,
        is_active,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
