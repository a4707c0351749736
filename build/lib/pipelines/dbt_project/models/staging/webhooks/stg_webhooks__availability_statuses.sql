-- One row per item of `availabilityStatuses` (top level of the payload) of each availability
-- event; `change_type` says whether the event created or deleted it.

with

source as (

    select * from {{ typed_source('webhooks', 'events') }}
    where family = 'availability'

),

items as (

    select
        source.event_key,
        source.event_type,
        source.event_timestamp,
        source.received_at,
        {{ event_time_implausible('source') }} as is_event_time_implausible,
        source.scheduler_id,
        source.is_admin_action,
        source.untypable_value_count,
        statuses.item,
        statuses.item_number,
        coalesce(
            nullif(statuses.item ->> 'id', ''),
            nullif(
                concat_ws(
                    '/',
                    statuses.item ->> 'userId',
                    statuses.item -> 'start' ->> 'timestamp',
                    statuses.item ->> 'type'
                ),
                ''
            ),
            source.event_key || '#' || statuses.item_number
        ) as availability_key
    from source
    cross join
        lateral {{ json_items("source.payload -> 'availabilityStatuses'") }}
        with ordinality as statuses (item, item_number)

),

keyed as (

    select
        *,
        count(*) over (partition by event_key, availability_key) as key_count
    from items

),

renamed as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        received_at,
        is_event_time_implausible,
        scheduler_id,
        is_admin_action,
        {{ json_field('availability_status_id', 'item') }} as availability_status_id,
        {{ json_field('availability_type', 'item') }} as availability_type,
        {{ json_field('note', 'item') }} as note,
        {{ json_field('timezone', 'item') }} as timezone,
        {{ json_field('user_id', 'item') }} as user_id,
        {{ json_field('starts_at', 'item') }} as starts_at,
        {{ json_field('ends_at', 'item') }} as ends_at,
        untypable_value_count
        + {{ untypable_item_fields('item', 'availabilityStatuses') }} as untypable_value_count,
        coalesce({{ json_field('is_all_day', 'item') }}, false) as is_all_day,
        case event_type
            when 'availability_status_created' then 'created'
            when 'availability_status_deleted' then 'deleted'
        end as change_type,
        availability_key,
        -- an event listing one status twice: each item keeps a key of its own
        event_key || '/' || availability_key
        || case when key_count > 1 then '#' || item_number else '' end as availability_event_key

    from keyed

)

select * from renamed
