-- One row per user custom field definition.
-- A record the provider stopped returning is kept, flagged is_deleted; deleted_at is when the
-- sync found it gone.

with

source as (

    select * from {{ typed_source('connecteam', 'user_custom_field_definitions') }}

),

renamed as (

    select
        id as custom_field_id,
        name as custom_field_name,
        type as custom_field_type,
        category_id,
        is_required,
        is_multi_select,
        is_visible_to_users,
        is_editable_for_users,
        dropdown_options,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
