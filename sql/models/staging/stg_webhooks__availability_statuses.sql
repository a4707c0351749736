-- One row per item of `availabilityStatuses` (top level of the payload) of each availability
-- event; `change_type` says whether the event created or deleted it.

with

source as (

    select * from {{ source('webhooks', 'events') }}
    where family = 'availability'

),

items as (

    select
        source.event_key,
        source.event_type,
        source.event_timestamp,
        source.received_at,
        source.payload,
        unnest(json_extract(source.payload, '$.availabilityStatuses[*]')) as item
    from source

),

renamed as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        received_at,
        item ->> 'id' as availability_status_id,
        item ->> 'type' as availability_type,
        item ->> 'note' as note,
        {{ valid_timezone("item -> 'start' ->> 'timezone'") }} as timezone,
        try_cast(item ->> 'userId' as bigint) as user_id,
        try_cast(payload ->> 'schedulerId' as bigint) as scheduler_id,
        try_cast(payload ->> 'isAdminAction' as boolean) as is_admin_action,
        {{ epoch_to_utc("item -> 'start' ->> 'timestamp'") }} as starts_at,
        {{ epoch_to_utc("item -> 'end' ->> 'timestamp'") }} as ends_at,
        coalesce(try_cast(item ->> 'isAllDay' as boolean), false) as is_all_day,
        case event_type
            when 'availability_status_created' then 'created'
            when 'availability_status_deleted' then 'deleted'
        end as change_type,
        coalesce(
            item ->> 'id',
            concat_ws('/', item ->> 'userId', item -> 'start' ->> 'timestamp', item ->> 'type')
        ) as availability_key

    from items

),

final as (

    select
        *,
        event_key || '/' || availability_key as availability_event_key
    from renamed

)

select * from final
