{%- set users = source('connecteam', 'users') -%}

with

source as (

    select * from {{ users }}

),

renamed as (

    select
        user_id,
        first_name,
        last_name,
        user_type,
        phone_number,
        custom_fields,
        {{ column_or_null(users, 'email', 'varchar') }} as email,
        {{ column_or_null(users, 'kiosk_code', 'varchar') }} as kiosk_code,
        trim(concat_ws(' ', first_name, last_name)) as full_name,
        coalesce(is_archived, false) as is_archived,
        {{ epoch_to_utc(column_or_null(users, 'created_at', 'bigint')) }} as created_at,
        {{ epoch_to_utc(column_or_null(users, 'modified_at', 'bigint')) }} as modified_at,
        {{ epoch_to_utc(column_or_null(users, 'archived_at', 'bigint')) }} as archived_at,
        {{ epoch_to_utc(column_or_null(users, 'last_login', 'bigint')) }} as last_login_at

    from source

)

select * from renamed
