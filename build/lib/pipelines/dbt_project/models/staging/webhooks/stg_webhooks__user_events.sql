-- One row per user named by a user webhook event: full user objects for created/updated, ids
-- only for deleted/archived/restored/promoted/demoted (`data` is an array).

with

source as (

    select * from {{ typed_source('webhooks', 'events') }}
    where family = 'user'

),

items as (

    select
        source.event_key,
        source.event_type,
        source.event_timestamp,
        source.received_at,
        {{ event_time_implausible('source') }} as is_event_time_implausible,
        source.untypable_value_count,
        data_items.item,
        data_items.item_number
    from source
    cross join
        lateral {{ json_items("source.payload -> 'data'") }}
        with ordinality as data_items (item, item_number)

),

renamed as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        received_at,
        is_event_time_implausible,
        {{ json_field('first_name', 'item') }} as first_name,
        {{ json_field('last_name', 'item') }} as last_name,
        {{ json_field('email', 'item') }} as email,
        {{ json_field('user_type', 'item') }} as user_type,
        {{ json_field('user_id', 'item') }} as user_id,
        {{ json_field('is_archived', 'item') }} as is_archived,
        untypable_value_count + {{ untypable_item_fields('item', 'data') }}
            as untypable_value_count,
        event_type in ('user_created', 'user_updated') as has_profile,
        {{ readable_key([
            'event_key', "coalesce(item ->> 'userId', '#' || item_number)"
        ]) }} as user_event_key

    from items

)

select * from renamed
