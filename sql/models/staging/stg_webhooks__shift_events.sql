-- One row per shift assignment named by a shift webhook event, whatever its version: V1 sends one
-- event per assigned user (slot ids `<shiftId>:<uuid>`), V2 one event per shift with every
-- `assignedUserIds`. Deleted events name ids only (`data.ids`).

with

source as (

    select * from {{ source('webhooks', 'events') }}
    where family = 'shift'

),

shift_items as (

    select
        source.event_key,
        source.event_type,
        source.event_timestamp,
        source.webhook_version,
        source.payload,
        unnest(json_extract(source.payload, '$.data.shifts[*]')) as shift
    from source

),

assigned as (

    select
        shift_items.*,
        unnest(
            case
                when
                    json_type(shift_items.shift -> 'assignedUserIds') = 'ARRAY'
                    and json_array_length(shift_items.shift -> 'assignedUserIds') > 0
                    then try_cast(shift_items.shift -> 'assignedUserIds' as bigint[])
                else [try_cast(null as bigint)]
            end
        ) as user_id
    from shift_items

),

deleted as (

    select
        source.event_key,
        source.event_type,
        source.event_timestamp,
        source.webhook_version,
        source.payload,
        unnest(json_extract_string(source.payload, '$.data.ids[*]')) as slot_id
    from source

),

changed_rows as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        webhook_version,
        user_id,
        shift ->> 'id' as slot_id,
        shift ->> 'title' as title,
        {{ valid_timezone("shift ->> 'timezone'") }} as timezone,
        try_cast(payload ->> 'schedulerId' as bigint) as scheduler_id,
        coalesce(try_cast(shift ->> 'isOpenShift' as boolean), false) as is_open_shift,
        {{ epoch_to_utc("shift ->> 'startTime'") }} as starts_at,
        {{ epoch_to_utc("shift ->> 'endTime'") }} as ends_at,
        false as is_deletion
    from assigned

),

deleted_rows as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        webhook_version,
        try_cast(null as bigint) as user_id,
        slot_id,
        cast(null as varchar) as title,
        cast(null as varchar) as timezone,
        try_cast(payload ->> 'schedulerId' as bigint) as scheduler_id,
        false as is_open_shift,
        try_cast(null as timestamptz) as starts_at,
        try_cast(null as timestamptz) as ends_at,
        true as is_deletion
    from deleted

),

unioned as (

    select * from changed_rows
    union all
    select * from deleted_rows

),

final as (

    select
        *,
        split_part(slot_id, ':', 1) as shift_id,
        cast(scheduler_id as varchar) || '/' || split_part(slot_id, ':', 1) || '/'
        || coalesce(cast(user_id as varchar), case when is_deletion then 'all' else 'open' end)
            as shift_assignment_key,
        event_key || '/' || slot_id || '/' || coalesce(cast(user_id as varchar), 'none')
            as shift_event_key
    from unioned

)

select * from final
