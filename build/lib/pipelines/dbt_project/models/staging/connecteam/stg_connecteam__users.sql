-- One row per user (active and archived) from the API; times in UTC.

with

source as (

    select * from {{ typed_source('connecteam', 'users') }}

),

renamed as (

    select
        user_id,
        first_name,
        last_name,
        user_type,
        phone_number,
        email,
        kiosk_code,
        custom_fields,
        created_at,
        modified_at,
        archived_at,
        last_login as last_login_at,
        untypable_value_count,
        trim(concat_ws(' ', first_name, last_name)) as full_name,
        coalesce(is_archived, false) as is_archived

    from source

)

select * from renamed
