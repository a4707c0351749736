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
        unnest(json_extract(source.payload, '$.data.shifts[*]')) as shift,
        generate_subscripts(json_extract(source.payload, '$.data.shifts[*]'), 1)
            as item_number
    from source

),

assigned as (

    select
        shift_items.*,
        unnest(
            coalesce(
                nullif(
                    list_distinct(
                        try_cast(
                            case
                                when json_type(shift_items.shift -> 'assignedUserIds') = 'ARRAY'
                                    then shift_items.shift -> 'assignedUserIds'
                            end as bigint[]
                        )
                    ),
                    []
                ),
                [cast(null as bigint)]
            )
        ) as user_id
    from shift_items

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
        unnest(json_extract_string(source.payload, '$.data.ids[*]')) as slot_id,
        generate_subscripts(json_extract(source.payload, '$.data.ids[*]'), 1) as item_number
    from source

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
            when json_type(shift -> 'breaks') = 'ARRAY'
                then coalesce(
                    list_sum(
                        list_transform(
                            cast(shift -> 'breaks' as json[]),
                            lambda b: case
                                when b ->> 'type' = 'unpaid'
                                    then try_cast(b ->> 'duration' as double)
                            end
                        )
                    ),
                    0
                )
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
        cast(null as double) as unpaid_break_minutes,
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
            'event_key', "coalesce(slot_id, '#' || item_number)", 'user_id'
        ]) }} as shift_event_key
    from unioned

)

select * from final
