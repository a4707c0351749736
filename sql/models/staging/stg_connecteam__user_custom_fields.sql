{%- set columns = {'user_id': 'bigint', 'custom_fields': 'json'} -%}

with

users as (

    select
        user_id,
        custom_fields
    from {{ source_or_empty('connecteam', 'users', columns) }}
    where json_type(custom_fields) = 'ARRAY'

),

unnested as (

    select
        users.user_id,
        unnest(cast(users.custom_fields as json[])) as custom_field
    from users

),

objects as (

    select * from unnested
    where json_type(custom_field) = 'OBJECT'

),

renamed as (

    select
        user_id,
        try_cast(custom_field ->> 'customFieldId' as bigint) as custom_field_id,
        custom_field ->> 'name' as custom_field_name,
        custom_field ->> 'type' as custom_field_type,
        custom_field -> 'value' as value_json,
        case
            when json_type(custom_field -> 'value') in ('ARRAY', 'OBJECT')
                then cast(custom_field -> 'value' as varchar)
            else custom_field ->> 'value'
        end as value_text,
        cast(user_id as varchar) || '/' || (custom_field ->> 'customFieldId')
            as user_custom_field_key

    from objects

)

select * from renamed
