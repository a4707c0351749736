-- One row per shift assignment as of now: the API's rows, with the shift webhook events that
-- are newer than the API's last pull of the shift's window applied over them.
--
-- An event speaks for a unit: a V1 event for one slot (its id `<shiftId>:<uuid>`), a V2 event
-- for a whole shift (its base id), a deletion for the slots or shifts it names. The latest
-- event of a unit applies when its event time is later than the latest pull whose window held
-- the unit's shift (shift_coverage), or no pull held it; otherwise the API's rows, as new as
-- the event or newer, stand. Where events of both versions name one slot, the newest stands.
-- Applying an event:
--   * its assignments replace the unit's API rows (a V2 update lists every assigned user, so a
--     user it no longer lists was taken off: that row stays, flagged deleted at the event time;
--     a V1 update of a slot to another user moves the slot, as the API's row will);
--   * a deletion flags the unit's rows deleted at the event time;
--   * an assignment the API does not hold yet (a shift created or a user added since the pull)
--     is a new row.
-- The next sync's rows win again once its pull is newer than the events.

with

api as (

    select * from {{ ref('stg_connecteam__shifts') }}

),

coverage as (

    select * from {{ ref('stg_connecteam__shift_coverage') }}

),

events as (

    select * from {{ ref('stg_webhooks__shift_events') }}
    where
        event_at is not null
        and not is_event_time_implausible
        and scheduler_id is not null
        and slot_id is not null

),

-- the latest event of each unit (all its rows: a V2 event lists several users)
ranked_events as (

    select
        *,
        dense_rank() over (
            partition by scheduler_id, slot_id
            order by event_at desc, is_deletion desc, event_key desc
        ) as event_rank
    from events

),

latest as (

    select * from ranked_events
    where event_rank = 1

),

units as (

    select
        latest.scheduler_id,
        latest.slot_id as unit_id,
        max(latest.event_at) as event_at,
        bool_or(latest.is_deletion) as is_deletion,
        coalesce(min(latest.starts_at), min(api.starts_at)) as starts_at
    from latest
    left join api
        on
            latest.scheduler_id = api.scheduler_id
            and latest.slot_id in (api.slot_id, api.shift_id)
    group by latest.scheduler_id, latest.slot_id

),

-- the latest pull whose window held the unit's shift
unit_pulls as (

    select
        units.scheduler_id,
        units.unit_id,
        max(coverage.pulled_at) as pulled_at
    from units
    inner join coverage
        on
            units.scheduler_id = coverage.scheduler_id
            and units.starts_at >= coverage.window_from
            and units.starts_at < coverage.window_to
    group by units.scheduler_id, units.unit_id

),

applied_units as (

    select units.*
    from units
    left join unit_pulls
        on
            units.scheduler_id = unit_pulls.scheduler_id
            and units.unit_id = unit_pulls.unit_id
    where unit_pulls.pulled_at is null or units.event_at > unit_pulls.pulled_at

),

event_assignments as (

    select latest.*
    from latest
    inner join applied_units
        on
            latest.scheduler_id = applied_units.scheduler_id
            and latest.slot_id = applied_units.unit_id
    where not latest.is_deletion

),

-- API rows inside an applied unit, with what became of them
claims as (

    select
        api.shift_assignment_key,
        applied_units.event_at,
        applied_units.is_deletion,
        applied_units.unit_id = api.slot_id as is_slot_unit,
        exists(
            select 1 from event_assignments
            where
                event_assignments.scheduler_id = api.scheduler_id
                and event_assignments.slot_id = applied_units.unit_id
                and event_assignments.shift_id = api.shift_id
                and event_assignments.user_id is not distinct from api.user_id
        ) as is_restated
    from api
    inner join applied_units
        on
            api.scheduler_id = applied_units.scheduler_id
            and applied_units.unit_id in (api.slot_id, api.shift_id)

),

-- the latest unit event claiming each API row
claimed as (

    {{ first_row_per(
        'claims', 'shift_assignment_key',
        'event_at desc, is_slot_unit desc, is_deletion desc, is_restated desc'
    ) }}

),

api_rows as (

    select
        api.scheduler_id,
        api.shift_id,
        api.slot_id,
        api.user_id,
        api.is_open_shift,
        api.title,
        api.job_id,
        api.starts_at,
        api.ends_at,
        api.timezone,
        api.scheduled_hours,
        api.unpaid_break_minutes,
        api.is_published,
        'api' as data_source,
        api.is_deleted or coalesce(claimed.is_deletion or not claimed.is_slot_unit, false)
            as is_deleted,
        case
            when api.is_deleted then api.deleted_at
            when claimed.shift_assignment_key is not null then claimed.event_at
        end as deleted_at,
        claimed.event_at as changed_at
    from api
    left join claimed on api.shift_assignment_key = claimed.shift_assignment_key
    -- restated by the event, or a V1 slot now held by another user: the event's row stands
    where
        not coalesce(
            claimed.is_restated or (claimed.is_slot_unit and not claimed.is_deletion), false
        )

),

webhook_candidates as (

    select
        event_assignments.shift_event_key,
        same.slot_id as same_slot_id,
        event_assignments.scheduler_id,
        event_assignments.shift_id,
        coalesce(same.slot_id, event_assignments.slot_id) as slot_id,
        event_assignments.user_id,
        coalesce(event_assignments.is_open_shift, same.is_open_shift, false) as is_open_shift,
        coalesce(event_assignments.title, same.title) as title,
        coalesce(event_assignments.job_id, same.job_id) as job_id,
        event_assignments.starts_at,
        event_assignments.ends_at,
        coalesce(event_assignments.timezone, same.timezone) as timezone,
        {{ epoch_seconds('event_assignments.ends_at - event_assignments.starts_at') }} / 60.0
        - coalesce(event_assignments.unpaid_break_minutes, same.unpaid_break_minutes, 0)
            as scheduled_minutes,
        coalesce(event_assignments.unpaid_break_minutes, same.unpaid_break_minutes, 0)
            as unpaid_break_minutes,
        coalesce(event_assignments.is_published, same.is_published, true) as is_published,
        'webhook' as data_source,
        false as is_deleted,
        cast(null as timestamptz) as deleted_at,
        event_assignments.event_at as changed_at
    from event_assignments
    left join api as same
        on
            event_assignments.scheduler_id = same.scheduler_id
            and event_assignments.shift_id = same.shift_id
            and event_assignments.user_id is not distinct from same.user_id
            and event_assignments.slot_id in (same.slot_id, same.shift_id)

),

-- an event row matching several API rows of its shift and user: the first by slot id
webhook_rows as (

    select
        scheduler_id,
        shift_id,
        slot_id,
        user_id,
        is_open_shift,
        title,
        job_id,
        starts_at,
        ends_at,
        timezone,
        {{ round_to('scheduled_minutes / 60.0', 4) }} as scheduled_hours,
        unpaid_break_minutes,
        is_published,
        data_source,
        is_deleted,
        deleted_at,
        changed_at
    from (
        {{ first_row_per('webhook_candidates', 'shift_event_key', 'same_slot_id') }}
    ) as chosen

),

unioned as (

    select * from api_rows
    union all
    select * from webhook_rows

),

-- a slot named by events of both versions (a V1 slot event and a V2 or shift-wide event of its
-- shift) is stated by the newest of them
deduplicated as (

    {{ first_row_per(
        'unioned', 'scheduler_id, shift_id, user_id, slot_id',
        'changed_at desc nulls last, data_source asc'
    ) }}

)

select
    *,
    -- slots of one shift held by the same user (or several open slots) are told apart by
    -- their slot id, as in stg_connecteam__shifts
    {{ readable_key(['scheduler_id', 'shift_id', "coalesce(cast(user_id as varchar), 'open')"]) }}
    || case
        when count(*) over (partition by scheduler_id, shift_id, user_id) > 1
            then '/' || slot_id
        else ''
    end as shift_assignment_key
from deduplicated
