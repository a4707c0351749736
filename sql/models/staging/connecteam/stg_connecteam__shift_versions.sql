-- One row per version of a shift row the sync loaded (shift_versions is append-only) and
-- assignment it holds: new and changed rows and tombstones, with the sync's time (observed_at).
-- One row per assignment as in stg_connecteam__shifts: a V1 row holds one assignee (an open
-- shift none); a V2 row (shifts_api_version = 2) one row per distinct assigned user. A user the
-- row's previous version listed and this one does not (unassigned from a V2 shift, or a V1 slot
-- given to someone else) gets a row marked deleted at this version.

with

source as (

    select * from {{ typed_source('connecteam', 'shift_versions') }}

),

renamed as (

    select
        version_key as shift_version_key,
        scheduler_id,
        id as slot_id,
        title,
        timezone,
        start_time as starts_at,
        end_time as ends_at,
        update_time as updated_at,
        open_spots,
        is_require_admin_approval,
        created_by,
        observed_at,
        deleted_at,
        untypable_value_count,
        assigned_user_ids,
        coalesce(shift_id, split_part(id, ':', 1)) as shift_id,
        coalesce(is_published, false) as is_published,
        coalesce(is_open_shift, false) as is_open_shift,
        coalesce(is_deleted, false) as is_deleted,
        lag(version_key) over (
            partition by scheduler_id, id order by observed_at
        ) as previous_version_key

    from source

),

assignments as (

    -- one row per distinct user id the version lists (an item that is not an integer id is
    -- left out); one row with no user when it lists none
    select
        renamed.*,
        assigned.user_id
    from renamed
    left join
        lateral
        {{ distinct_json_ids('renamed.assigned_user_ids', 'user_id') }} as assigned
        on true

),

unassigned as (

    select
        current_version.shift_version_key,
        current_version.scheduler_id,
        current_version.slot_id,
        current_version.title,
        current_version.timezone,
        current_version.starts_at,
        current_version.ends_at,
        current_version.updated_at,
        current_version.open_spots,
        current_version.is_require_admin_approval,
        current_version.created_by,
        current_version.observed_at,
        current_version.deleted_at,
        current_version.untypable_value_count,
        current_version.assigned_user_ids,
        current_version.shift_id,
        current_version.is_published,
        current_version.is_open_shift,
        true as is_deleted,
        current_version.previous_version_key,
        earlier.user_id
    from renamed as current_version
    inner join assignments as earlier
        on current_version.previous_version_key = earlier.shift_version_key
    where
        earlier.user_id is not null
        and not exists (
            select 1
            from assignments as kept
            where
                kept.shift_version_key = current_version.shift_version_key
                and kept.user_id = earlier.user_id
        )

),

unioned as (

    select * from assignments
    union all
    select * from unassigned

)

select
    shift_version_key,
    scheduler_id,
    slot_id,
    shift_id,
    user_id,
    title,
    timezone,
    starts_at,
    ends_at,
    updated_at,
    open_spots,
    is_require_admin_approval,
    created_by,
    is_published,
    is_open_shift,
    observed_at,
    is_deleted,
    deleted_at,
    untypable_value_count,
    {{ readable_key([
        'shift_version_key', "coalesce(cast(user_id as varchar), 'open')"
    ]) }} as shift_version_assignment_key
from unioned
