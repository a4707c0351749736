{%- set columns = {
    'id': 'bigint', 'name': 'varchar', 'type': 'varchar', 'category_id': 'bigint',
    'is_required': 'boolean', 'is_multi_select': 'boolean'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'user_custom_field_definitions', columns) }}

),

renamed as (

    select
        untypable_value_count,
        id as custom_field_id,
        name as custom_field_name,
        type as custom_field_type,
        category_id,
        is_required,
        is_multi_select

    from source

)

select * from renamed
