-- One row per smart group: the API's listing (deleted groups flagged) with its segment, and
-- every group id a user version names that the listing does not hold (is_inferred).

with

listed as (

    select * from {{ ref('stg_connecteam__smart_groups') }}

),

segments as (

    select * from {{ ref('stg_connecteam__smart_group_segments') }}

),

named as (

    select distinct group_id from {{ ref('stg_connecteam__user_version_groups') }}
    where group_id is not null

),

members as (

    select
        group_id,
        group_name,
        group_segment_id,
        number_of_users,
        is_automatically_created,
        is_deleted,
        false as is_inferred
    from listed
    union all
    select
        named.group_id,
        null as group_name,
        null as group_segment_id,
        null as number_of_users,
        null as is_automatically_created,
        false as is_deleted,
        true as is_inferred
    from named
    where named.group_id not in (select listed.group_id from listed)

)

select
    members.group_id,
    members.group_name,
    members.group_segment_id,
    segments.segment_name,
    members.number_of_users,
    members.is_automatically_created,
    members.is_deleted,
    members.is_inferred,
    case
        when members.is_inferred then 'group ' || members.group_id || ' (not listed)'
        when members.is_deleted
            then
                coalesce(members.group_name, 'group ' || members.group_id)
                || ' (deleted)'
        else coalesce(members.group_name, 'group ' || members.group_id)
    end as group_label
from members
left join segments on members.group_segment_id = segments.group_segment_id
