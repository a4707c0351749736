{%- set columns = {
    'user_id': 'bigint', 'first_name': 'varchar', 'last_name': 'varchar', 'user_type': 'varchar',
    'phone_number': 'varchar', 'custom_fields': 'json', 'email': 'varchar',
    'kiosk_code': 'varchar', 'is_archived': 'boolean', 'created_at': 'bigint',
    'modified_at': 'bigint', 'archived_at': 'bigint', 'last_login': 'bigint'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'users', columns) }}

),

renamed as (

    select
        untypable_value_count,
        user_id,
        first_name,
        last_name,
        user_type,
        phone_number,
        custom_fields,
        email,
        kiosk_code,
        trim(concat_ws(' ', first_name, last_name)) as full_name,
        coalesce(is_archived, false) as is_archived,
        {{ epoch_to_utc('created_at') }} as created_at,
        {{ epoch_to_utc('modified_at') }} as modified_at,
        {{ epoch_to_utc('archived_at') }} as archived_at,
        {{ epoch_to_utc('last_login') }} as last_login_at

    from source

)

select * from renamed
