-- One row per version of a user record the sync loaded (user_versions) and smart group it
-- names in smartGroupsIds (an item that is not an integer id is left out), plus one row with
-- no group for a version naming none: the memberships as each sync saw them.

with

source as (

    select * from {{ typed_source('connecteam', 'user_versions') }}

),

memberships as (

    select
        source.version_key,
        source.user_id,
        source.observed_at,
        source.untypable_value_count,
        named.group_id
    from source
    left join
        lateral
        {{ distinct_json_ids('source.smart_groups_ids', 'group_id') }} as named
        on true

)

select
    version_key as user_version_key,
    user_id,
    observed_at,
    group_id,
    untypable_value_count,
    {{ readable_key(['version_key', "coalesce(cast(group_id as varchar), 'none')"]) }}
        as user_version_group_key
from memberships
