-- One row per user x smart group x span of membership, from the user versions the syncs saw:
-- a span starts at the first sync (observed_at) whose version names the group and ends at the
-- first later sync whose version does not (valid_to, null while it lasts). The provider says
-- nothing of when a membership changed: the spans are as the syncs saw them, so a move shows
-- at the sync after it (and a change the provider did not mark as a modification of the user,
-- modifiedAt, shows only when the user record changes otherwise or is read in full).

with

versions as (

    select distinct
        user_id,
        observed_at
    from {{ ref('stg_connecteam__user_version_groups') }}

),

named as (

    select distinct
        user_id,
        observed_at,
        group_id
    from {{ ref('stg_connecteam__user_version_groups') }}
    where group_id is not null

),

ever as (

    select distinct
        user_id,
        group_id
    from named

),

-- every version of a user against every group the user ever had: a member then or not
grid as (

    select
        versions.user_id,
        versions.observed_at,
        ever.group_id,
        membership.group_id is not null as is_member
    from versions
    inner join ever on versions.user_id = ever.user_id
    left join named as membership
        on
            versions.user_id = membership.user_id
            and versions.observed_at = membership.observed_at
            and ever.group_id = membership.group_id

),

previous as (

    select
        *,
        lag(is_member) over (
            partition by user_id, group_id order by observed_at
        ) as was_member
    from grid

),

changes as (

    select
        *,
        case when was_member is null or was_member != is_member then 1 else 0 end
            as starts_span
    from previous

),

numbered as (

    select
        *,
        sum(starts_span) over (
            partition by user_id, group_id order by observed_at
            rows between unbounded preceding and current row
        ) as span_number
    from changes

),

spans as (

    select
        user_id,
        group_id,
        span_number,
        bool_and(is_member) as is_member,
        min(observed_at) as valid_from
    from numbered
    group by user_id, group_id, span_number

),

bounded as (

    select
        *,
        lead(valid_from) over (
            partition by user_id, group_id order by span_number
        ) as valid_to
    from spans

),

first_seen as (

    select
        user_id,
        min(observed_at) as first_observed_at
    from versions
    group by user_id

)

select
    {{ readable_key(['bounded.user_id', 'bounded.group_id', 'bounded.valid_from']) }}
        as user_group_key,
    bounded.user_id,
    bounded.group_id,
    bounded.valid_from,
    bounded.valid_to,
    bounded.valid_to is null as is_current,
    bounded.valid_from = first_seen.first_observed_at as is_from_first_sync
from bounded
inner join first_seen on bounded.user_id = first_seen.user_id
where bounded.is_member
