-- One row per shift assignment from the API: V1 rows carry one assigned user (or none: an open
-- shift); a row with several assignedUserIds (V2 shape) becomes one row per distinct user.

with

source as (

    select * from {{ typed_source('connecteam', 'shifts') }}

),

break_items as (

    select
        source.scheduler_id,
        source.id,
        items.break_item
    from source
    cross join lateral {{ json_items('source.breaks') }} as items (break_item)

),

typed_breaks as (

    select
        scheduler_id,
        id,
        {{ json_field('break_type', 'break_item') }} as break_type,
        {{ json_field('break_duration', 'break_item') }} as break_minutes,
        {{ untypable_item_fields('break_item') }} as untypable_values
    from break_items

),

breaks as (

    select
        scheduler_id,
        id,
        sum(break_minutes) filter (where break_type = 'unpaid') as unpaid_break_minutes,
        sum(untypable_values) as untypable_break_values
    from typed_breaks
    group by scheduler_id, id

),

assignments as (

    -- one row per distinct user id the row lists (an item that is not an integer id is left
    -- out); one row with no user when it lists none
    select
        source.*,
        assigned.assigned_user_id
    from source
    left join
        lateral
        {{ distinct_json_ids('source.assigned_user_ids', 'assigned_user_id') }} as assigned
        on true

),

renamed as (

    select
        assignments.scheduler_id,
        assignments.id as slot_id,
        assignments.assigned_user_id as user_id,
        assignments.title,
        assignments.color,
        assignments.open_spots,
        assignments.is_require_admin_approval,
        assignments.created_by,
        assignments.timezone,
        assignments.is_published,
        assignments.job_id,
        assignments.start_time as starts_at,
        assignments.end_time as ends_at,
        assignments.creation_time as created_at,
        assignments.update_time as updated_at,
        assignments.deleted_at,
        coalesce(assignments.shift_id, split_part(assignments.id, ':', 1)) as shift_id,
        coalesce(assignments.is_open_shift, false) as is_open_shift,
        coalesce(assignments.is_deleted, false) as is_deleted,
        {{ epoch_seconds('assignments.end_time - assignments.start_time') }} / 60.0
            as scheduled_minutes_gross,
        coalesce(breaks.unpaid_break_minutes, 0) as unpaid_break_minutes,
        assignments.untypable_value_count + coalesce(breaks.untypable_break_values, 0)
            as untypable_value_count

    from assignments
    left join breaks
        on
            assignments.scheduler_id = breaks.scheduler_id
            and assignments.id = breaks.id

),

final as (

    select
        *,
        -- slots of one shift assigned to the same user (or several open slots) are told
        -- apart by their slot id
        {{ readable_key([
            'scheduler_id', 'shift_id', "coalesce(cast(user_id as varchar), 'open')"
        ]) }}
        || case
            when count(*) over (partition by scheduler_id, shift_id, user_id) > 1
                then '/' || slot_id
            else ''
        end as shift_assignment_key,
        {{ round_to('(scheduled_minutes_gross - unpaid_break_minutes) / 60.0', 4) }}
            as scheduled_hours

    from renamed

)

select * from final
