-- One row per shift assignment named by a shift webhook event, whatever its version: V1 sends one
-- event per assigned user (slot ids `<shiftId>:<uuid>`), V2 one event per shift with every
-- `assignedUserIds`. Deleted events name ids only (`data.ids`).

with

source as (

    select * from {{ typed_source('webhooks', 'events') }}
    where family = 'shift'

),

shift_items as (

    select
        source.event_key,
        source.event_type,
        source.event_timestamp,
        {{ event_time_implausible('source') }} as is_event_time_implausible,
        source.webhook_version,
        source.scheduler_id,
        source.untypable_value_count,
        shifts.shift,
        shifts.item_number
    from source
    cross join
        lateral {{ json_items(json_get('source.payload', 'data.shifts')) }}
        with ordinality as shifts (shift, item_number)

),

assigned as (

    -- one row per distinct user id the shift lists (an item that is not an integer id is left
    -- out), one row with no user when it lists none; the unpaid break minutes of its breaks
    select
        shift_items.*,
        assigned_ids.user_id,
        breaks.unpaid_break_minutes as unpaid_break_sum
    from shift_items
    left join lateral (
        select distinct {{ try_cast(json_text('ids.user_id', ''), 'bigint') }} as user_id
        from {{ json_items("shift_items.shift -> 'assignedUserIds'") }} as ids (user_id)
        where {{ try_cast(json_text('ids.user_id', ''), 'bigint') }} is not null
    ) as assigned_ids on true
    left join lateral (
        select
            sum(
                case
                    when shift_breaks.item ->> 'type' = 'unpaid'
                        then {{ typed_value("shift_breaks.item ->> 'duration'", 'double') }}
                end
            ) as unpaid_break_minutes
        from {{ json_items("shift_items.shift -> 'breaks'") }} as shift_breaks (item)
    ) as breaks on true

),

deleted as (

    select
        source.event_key,
        source.event_type,
        source.event_timestamp,
        {{ event_time_implausible('source') }} as is_event_time_implausible,
        source.webhook_version,
        source.scheduler_id,
        source.untypable_value_count,
        {{ json_text('ids.slot_id', '') }} as slot_id,
        ids.item_number
    from source
    cross join
        lateral {{ json_items(json_get('source.payload', 'data.ids')) }}
        with ordinality as ids (slot_id, item_number)

),

changed_rows as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        is_event_time_implausible,
        webhook_version,
        user_id,
        scheduler_id,
        item_number,
        {{ json_field('slot_id', 'shift') }} as slot_id,
        {{ json_field('title', 'shift') }} as title,
        {{ json_field('timezone', 'shift') }} as timezone,
        {{ json_field('is_open_shift', 'shift') }} as is_open_shift,
        {{ json_field('starts_at', 'shift') }} as starts_at,
        {{ json_field('ends_at', 'shift') }} as ends_at,
        {{ json_field('is_published', 'shift') }} as is_published,
        {{ json_field('job_id', 'shift') }} as job_id,
        case
            when {{ is_json_array("shift -> 'breaks'") }}
                then coalesce(unpaid_break_sum, 0)
        end as unpaid_break_minutes,
        false as is_deletion,
        untypable_value_count
        + {{ untypable_item_fields('shift', 'data.shifts') }} as untypable_value_count
    from assigned

),

deleted_rows as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        is_event_time_implausible,
        webhook_version,
        cast(null as bigint) as user_id,
        scheduler_id,
        item_number,
        slot_id,
        cast(null as varchar) as title,
        cast(null as varchar) as timezone,
        cast(null as boolean) as is_open_shift,
        cast(null as timestamptz) as starts_at,
        cast(null as timestamptz) as ends_at,
        cast(null as boolean) as is_published,
        cast(null as varchar) as job_id,
        cast(null as float8) as unpaid_break_minutes,
        true as is_deletion,
        untypable_value_count
    from deleted

),

unioned as (

    select * from changed_rows
    union all
    select * from deleted_rows

),

final as (

    select
        event_key,
        event_type,
        event_at,
        is_event_time_implausible,
        webhook_version,
        user_id,
        scheduler_id,
        slot_id,
        title,
        timezone,
        is_open_shift,
        starts_at,
        ends_at,
        is_published,
        job_id,
        unpaid_break_minutes,
        is_deletion,
        untypable_value_count,
        split_part(slot_id, ':', 1) as shift_id,
        {{ readable_key([
            'scheduler_id', "split_part(slot_id, ':', 1)",
            "coalesce(cast(user_id as varchar), case when is_deletion then 'all' else 'open' end)"
        ]) }} as shift_assignment_key,
        {{ readable_key([
            'event_key', "coalesce(slot_id, '#' || item_number)",
            "coalesce(cast(user_id as varchar), case when is_deletion then 'all' else 'open' end)"
        ]) }} as shift_event_key
    from unioned

)

select * from final
