-- One row per change to a published shift assignment, from the assignment versions
-- (int_shift_assignments__versions): added (published, or created published), cancelled
-- (deleted or unpublished), reassigned (cancelled while the same shift gained another user at
-- the same moment; the addition is that same change), time_moved, shortened, extended. The
-- assignments a scheduler's first sync found are its starting point, not additions. A change is
-- dated at its webhook event, or, seen only by a sync, at that sync (is_dated_at_sync).
-- notice_hours: hours from the change to the shift's start as it stood before the change (for
-- an addition, the new start). A change made once the shift had started (an admin's cleanup
-- of a past shift) is its own kind, after_start, with no notice (change_action says what it
-- did): never "short notice" with negative hours.
-- Rebuilt in full on every build (a webhook may change an assignment of any age).

{{ config(materialized='table') }}

with

all_versions as (

    select * from {{ ref('int_shift_assignments__versions') }}

),

versions as (

    select * from all_versions

),

first_syncs as (

    select
        scheduler_id,
        min(valid_from) as first_synced_at
    from all_versions
    where detected_by = 'sync'
    group by scheduler_id

),

transitions as (

    select
        versions.*,
        versions.is_published and not versions.is_deleted as is_on_schedule,
        lag(versions.starts_at) over assignment as previous_starts_at,
        lag(versions.ends_at) over assignment as previous_ends_at,
        coalesce(
            lag(versions.is_published and not versions.is_deleted) over assignment, false
        ) as was_on_schedule,
        versions.version_number = 1
        and versions.detected_by = 'sync'
        and versions.valid_from = first_syncs.first_synced_at as is_starting_point
    from versions
    left join first_syncs on versions.scheduler_id = first_syncs.scheduler_id
    window
        assignment as (partition by versions.shift_assignment_key order by versions.version_number)

),

classified as (

    select
        *,
        case
            when is_starting_point then null
            when not was_on_schedule and is_on_schedule then 'added'
            when was_on_schedule and not is_on_schedule then 'cancelled'
            when not (was_on_schedule and is_on_schedule) then null
            when starts_at = previous_starts_at and ends_at > previous_ends_at then 'extended'
            when starts_at = previous_starts_at and ends_at < previous_ends_at then 'shortened'
            when ends_at = previous_ends_at and starts_at < previous_starts_at then 'extended'
            when ends_at = previous_ends_at and starts_at > previous_starts_at then 'shortened'
            when starts_at <> previous_starts_at or ends_at <> previous_ends_at then 'time_moved'
        end as raw_change_type
    from transitions

),

changes as (

    select * from classified
    where raw_change_type is not null

),

reassignment_pairs as (

    select
        cancelled.shift_assignment_version_key as cancelled_key,
        added.shift_assignment_version_key as added_key,
        added.user_id as added_user_id
    from changes as cancelled
    inner join changes as added
        on
            cancelled.scheduler_id = added.scheduler_id
            and cancelled.shift_id = added.shift_id
            and cancelled.valid_from = added.valid_from
            and cancelled.user_id is distinct from added.user_id
    where cancelled.raw_change_type = 'cancelled' and added.raw_change_type = 'added'

),

reassignments as (

    select
        cancelled_key,
        min(added_user_id) as new_user_id
    from reassignment_pairs
    group by cancelled_key

),

absorbed as (

    select distinct added_key as shift_assignment_version_key
    from reassignment_pairs

),

final as (

    select
        changes.shift_assignment_version_key as schedule_change_key,
        changes.shift_assignment_key,
        changes.scheduler_id,
        changes.shift_id,
        changes.user_id,
        reassignments.new_user_id,
        changes.valid_from as changed_at,
        changes.detected_by,
        changes.previous_starts_at,
        changes.previous_ends_at,
        changes.detected_by = 'sync' as is_dated_at_sync,
        case
            when changes.raw_change_type = 'added' then null else changes.starts_at
        end as new_starts_at,
        case
            when changes.raw_change_type = 'added' then null else changes.ends_at
        end as new_ends_at,
        case
            when reassignments.cancelled_key is not null then 'reassigned'
            else changes.raw_change_type
        end as change_action,
        {{ round_to(
            epoch_seconds('coalesce(changes.previous_starts_at, changes.starts_at)'
                ~ ' - changes.valid_from') ~ ' / 3600',
            2
        ) }} as hours_before_start
    from changes
    left join reassignments
        on changes.shift_assignment_version_key = reassignments.cancelled_key
    left join absorbed
        on changes.shift_assignment_version_key = absorbed.shift_assignment_version_key
    where absorbed.shift_assignment_version_key is null

),

timed as (

    select
        schedule_change_key,
        shift_assignment_key,
        scheduler_id,
        shift_id,
        user_id,
        new_user_id,
        changed_at,
        detected_by,
        previous_starts_at,
        previous_ends_at,
        is_dated_at_sync,
        new_starts_at,
        new_ends_at,
        case when hours_before_start < 0 then 'after_start' else change_action end
            as change_type,
        change_action,
        case when hours_before_start >= 0 then hours_before_start end as notice_hours
    from final

)

select
    *,
    coalesce(notice_hours <= {{ var('schedule_notice_window_days') }} * 24, false)
        as is_inside_notice_window,
    coalesce(notice_hours <= 24, false) as is_inside_24h
from timed
