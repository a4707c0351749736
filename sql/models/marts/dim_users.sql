-- Current state of every user: the API's record, overridden by user webhooks newer than it;
-- users only seen in facts are added as inferred members so no fact loses its user.
-- user_label is the name charts, filters and example queries show: the full name ("user <id>"
-- without one), the id appended in parentheses where two users share a name.

with

api_users as (

    select * from {{ ref('stg_connecteam__users') }}

),

user_events as (

    select * from {{ ref('stg_webhooks__user_events') }}

),

newer_events as (

    select user_events.*
    from user_events
    left join api_users on user_events.user_id = api_users.user_id
    where
        api_users.user_id is null
        or user_events.event_at > coalesce(api_users.modified_at, '-infinity'::timestamptz)

),

latest_profile as (

    {{ latest_event('newer_events', 'user_id', where='has_profile') }}

),

latest_archival as (

    select
        user_id,
        event_type
    from (
        {{ latest_event(
            'newer_events', 'user_id', where="event_type in ('user_archived', 'user_restored')"
        ) }}
    ) as latest

),

latest_role as (

    select
        user_id,
        event_type
    from (
        {{ latest_event(
            'newer_events', 'user_id', where="event_type in ('user_promoted', 'user_demoted')"
        ) }}
    ) as latest

),

deletions as (

    select
        user_id,
        max(event_at) as deleted_at
    from user_events
    where event_type = 'user_deleted'
    group by user_id

),

fact_users as (

    select user_id from {{ ref('int_users__in_api_facts') }}
    union
    select user_id from {{ ref('int_users__in_webhook_facts') }}

),

all_users as (

    select user_id from api_users
    union
    select user_id from user_events
    union
    select user_id from fact_users

),

final as (

    select
        all_users.user_id,
        coalesce(latest_profile.first_name, api_users.first_name) as first_name,
        coalesce(latest_profile.last_name, api_users.last_name) as last_name,
        coalesce(latest_profile.email, api_users.email) as email,
        api_users.created_at,
        api_users.modified_at as api_modified_at,
        deletions.deleted_at,
        trim(concat_ws(
            ' ',
            coalesce(latest_profile.first_name, api_users.first_name),
            coalesce(latest_profile.last_name, api_users.last_name)
        )) as full_name,
        case latest_role.event_type
            when 'user_promoted' then 'manager'
            when 'user_demoted' then 'user'
            else coalesce(latest_profile.user_type, api_users.user_type)
        end as user_type,
        case latest_archival.event_type
            when 'user_archived' then true
            when 'user_restored' then false
            else coalesce(latest_profile.is_archived, api_users.is_archived, false)
        end as is_archived,
        deletions.user_id is not null as is_deleted,
        api_users.user_id is not null as is_in_api,
        api_users.user_id is null and latest_profile.user_id is null as is_inferred,
        latest_profile.user_id is not null
        or latest_archival.user_id is not null
        or latest_role.user_id is not null as is_overridden_by_webhook

    from all_users
    left join api_users on all_users.user_id = api_users.user_id
    left join latest_profile on all_users.user_id = latest_profile.user_id
    left join latest_archival on all_users.user_id = latest_archival.user_id
    left join latest_role on all_users.user_id = latest_role.user_id
    left join deletions on all_users.user_id = deletions.user_id
    where all_users.user_id is not null

)

select
    *,
    {{ display_label("nullif(full_name, '')", 'user_id', 'user') }} as user_label
from final
