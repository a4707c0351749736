-- One row per smart group: the API's listing (deleted groups flagged) with its segment, and
-- every group id a user version names that the listing does not hold (is_inferred). group_label
-- is the name charts and filters show: "(deleted)" after a deleted group, "group <id> (not
-- listed)" for an inferred one, "group <id>" for one without a name, the id appended where two
-- groups would show the same label (display_label).

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

),

labelled as (

    select
        members.*,
        segments.segment_name,
        case
            when members.is_inferred
                then 'group ' || cast(members.group_id as varchar) || ' (not listed)'
            else members.group_name || case when members.is_deleted then ' (deleted)' else '' end
        end as group_display_name
    from members
    left join segments on members.group_segment_id = segments.group_segment_id

)

select
    group_id,
    group_name,
    group_segment_id,
    segment_name,
    number_of_users,
    is_automatically_created,
    is_deleted,
    is_inferred,
    {{ display_label('group_display_name', 'group_id', 'group') }} as group_label
from labelled
