-- One row per user x custom field: the users' `customFields` unnested (items that are not
-- objects are skipped).

with

users as (

    select * from {{ typed_source('connecteam', 'users') }}

),

unnested as (

    select
        users.user_id,
        users.untypable_value_count,
        items.custom_field,
        items.item_number
    from users
    cross join
        lateral {{ json_items('users.custom_fields') }}
        with ordinality as items (custom_field, item_number)

),

objects as (

    select * from unnested
    where {{ is_json_object('custom_field') }}

),

renamed as (

    select
        user_id,
        item_number,
        {{ json_field('custom_field_id', 'custom_field') }} as custom_field_id,
        {{ json_field('custom_field_name', 'custom_field') }} as custom_field_name,
        {{ json_field('custom_field_type', 'custom_field') }} as custom_field_type,
        {{ json_field('value_json', 'custom_field') }} as value_json,
        {{ json_text('custom_field', 'value') }} as value_text,
        untypable_value_count + {{ untypable_item_fields('custom_field') }}
            as untypable_value_count,
        {{ readable_key([
            'user_id', "coalesce(custom_field ->> 'customFieldId', '#' || item_number)"
        ]) }} as user_custom_field_key

    from objects

),

-- a custom field listed twice for one user: its first item
numbered as (

    select
        *,
        row_number() over (
            partition by user_custom_field_key order by item_number
        ) as key_rank
    from renamed

)

select
    user_id,
    custom_field_id,
    custom_field_name,
    custom_field_type,
    value_json,
    value_text,
    untypable_value_count,
    user_custom_field_key
from numbered
where key_rank = 1
