-- One row per version of a shift assignment (scheduler x shift x user; an open shift: no user):
-- the API's versions (shift_versions, dated at the sync that loaded them) and the shift webhook
-- events (V1 and V2 created/updated/deleted, dated at their event time), in time order. A
-- webhook's publication is its shift's isPublished (a draft is not on the schedule); one that
-- does not say keeps the previous version's (published when none). A
-- deletion webhook names a V1 slot or a V2 shift: it ends every assignment known for it. A
-- deletion keeps the times of the version before it (the sync's tombstone holds the last row
-- the API returned, older than a webhook's change). A version whose state (times, publication,
-- deletion) equals the one before it adds nothing: an API version confirming what a webhook
-- already said, or a re-extracted sync.
-- A table rebuilt in full on every build (every assignment's whole history: a version of any
-- age may change).

{{ config(materialized='table') }}

with

api as (

    select
        scheduler_id,
        shift_id,
        slot_id,
        user_id,
        starts_at,
        ends_at,
        is_published,
        is_deleted,
        observed_at as version_at,
        'sync' as detected_by
    from {{ ref('stg_connecteam__shift_versions') }}
    where scheduler_id is not null and shift_id is not null and observed_at is not null

),

events as (

    select * from {{ ref('stg_webhooks__shift_events') }}
    where event_at is not null and not is_event_time_implausible and scheduler_id is not null

),

webhook_changes as (

    select
        scheduler_id,
        shift_id,
        slot_id,
        user_id,
        starts_at,
        ends_at,
        is_published,
        false as is_deleted,
        event_at as version_at,
        'webhook' as detected_by
    from events
    where not is_deletion and shift_id is not null

),

known as (

    select
        scheduler_id,
        shift_id,
        slot_id,
        user_id
    from api
    union
    select
        scheduler_id,
        shift_id,
        slot_id,
        user_id
    from webhook_changes

),

webhook_deletions as (

    select distinct
        known.scheduler_id,
        known.shift_id,
        known.slot_id,
        known.user_id,
        cast(null as timestamptz) as starts_at,
        cast(null as timestamptz) as ends_at,
        cast(null as boolean) as is_published,
        true as is_deleted,
        events.event_at as version_at,
        'webhook' as detected_by
    from events
    inner join known
        on
            events.scheduler_id = known.scheduler_id
            and events.slot_id in (known.slot_id, known.shift_id)
    where events.is_deletion

),

unioned as (

    select * from api
    union all
    select * from webhook_changes
    union all
    select * from webhook_deletions

),

keyed as (

    select
        *,
        {{ readable_key([
            'scheduler_id', 'shift_id', "coalesce(cast(user_id as varchar), 'open')"
        ]) }} as shift_assignment_key
    from unioned

),

scoped as (

    select * from keyed

),

carried as (

    select
        shift_assignment_key,
        scheduler_id,
        shift_id,
        user_id,
        version_at,
        detected_by,
        is_deleted,
        case
            when is_deleted
                then coalesce({{ last_non_null('starts_at', 'assignment_history') }}, starts_at)
            else coalesce(starts_at, {{ last_non_null('starts_at', 'assignment_history') }})
        end as starts_at,
        case
            when is_deleted
                then coalesce({{ last_non_null('ends_at', 'assignment_history') }}, ends_at)
            else coalesce(ends_at, {{ last_non_null('ends_at', 'assignment_history') }})
        end as ends_at,
        coalesce(
            is_published,
            {{ last_non_null('is_published', 'assignment_history') }},
            true
        ) as is_published
    from scoped
    window assignment_history as (
        partition by shift_assignment_key
        order by version_at asc, detected_by desc
        rows between unbounded preceding and 1 preceding
    )

),

distinct_states as (

    select
        *,
        md5(concat_ws('|', starts_at, ends_at, is_published, is_deleted)) as state_digest
    from carried

),

previous_states as (

    select
        *,
        lag(state_digest) over (
            partition by shift_assignment_key order by version_at asc, detected_by desc
        ) as previous_state_digest
    from distinct_states

),

changed as (

    select * from previous_states
    where coalesce(previous_state_digest <> state_digest, true)

),

numbered as (

    select
        *,
        row_number() over (
            partition by shift_assignment_key order by version_at asc, detected_by desc
        ) as version_number
    from changed

)

select
    {{ readable_key(['shift_assignment_key', 'version_number']) }} as shift_assignment_version_key,
    shift_assignment_key,
    version_number,
    scheduler_id,
    shift_id,
    user_id,
    starts_at,
    ends_at,
    is_published,
    is_deleted,
    detected_by,
    version_at as valid_from,
    lead(version_at) over (
        partition by shift_assignment_key order by version_number
    ) as valid_to
from numbered
