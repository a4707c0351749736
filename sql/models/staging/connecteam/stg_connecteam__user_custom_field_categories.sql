-- One row per user custom field category.
-- A record the provider stopped returning is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'user_custom_field_categories') }}

),

renamed as (

    select
        id as category_id,
        name as category_name,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
