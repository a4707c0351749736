-- One row per user x custom field: the users' `customFields` unnested (items that are not
-- objects are skipped).

with

users as (

    select * from {{ typed_source('connecteam', 'users') }}
    where json_type(custom_fields) = 'ARRAY'

),

unnested as (

    select
        users.user_id,
        users.untypable_value_count,
        unnest(cast(users.custom_fields as json[])) as custom_field,
        generate_subscripts(cast(users.custom_fields as json[]), 1) as item_number
    from users

),

objects as (

    select * from unnested
    where json_type(custom_field) = 'OBJECT'

),

renamed as (

    select
        user_id,
        {{ json_field('custom_field_id', 'custom_field') }} as custom_field_id,
        {{ json_field('custom_field_name', 'custom_field') }} as custom_field_name,
        {{ json_field('custom_field_type', 'custom_field') }} as custom_field_type,
        {{ json_field('value_json', 'custom_field') }} as value_json,
        case
            when json_type(custom_field -> 'value') in ('ARRAY', 'OBJECT')
                then cast(custom_field -> 'value' as varchar)
            else custom_field ->> 'value'
        end as value_text,
        untypable_value_count + {{ untypable_item_fields('custom_field') }}
            as untypable_value_count,
        {{ readable_key([
            'user_id', "coalesce(custom_field ->> 'customFieldId', '#' || item_number)"
        ]) }} as user_custom_field_key

    from objects
    qualify row_number() over (
        partition by user_custom_field_key order by item_number
    ) = 1

)

select * from renamed
