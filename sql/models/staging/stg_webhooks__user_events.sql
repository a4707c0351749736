-- One row per user named by a user webhook event: full user objects for created/updated, ids
-- only for deleted/archived/restored/promoted/demoted (`data` is an array).

with

source as (

    select * from {{ source('webhooks', 'events') }}
    where family = 'user'

),

items as (

    select
        source.event_key,
        source.event_type,
        source.event_timestamp,
        source.received_at,
        unnest(json_extract(source.payload, '$.data[*]')) as item
    from source

),

renamed as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        received_at,
        item ->> 'firstName' as first_name,
        item ->> 'lastName' as last_name,
        item ->> 'email' as email,
        item ->> 'userType' as user_type,
        try_cast(item ->> 'userId' as bigint) as user_id,
        try_cast(item ->> 'isArchived' as boolean) as is_archived,
        event_type in ('user_created', 'user_updated') as has_profile,
        event_key || '/' || (item ->> 'userId') as user_event_key

    from items

)

select * from renamed
