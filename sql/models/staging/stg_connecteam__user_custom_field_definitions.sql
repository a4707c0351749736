-- One row per user custom field definition.

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
        untypable_value_count

    from source

)

select * from renamed
