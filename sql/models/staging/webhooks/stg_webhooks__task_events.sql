-- One row per task named by a task webhook event (task_published, task_completed,
-- pending_user_request_fulfilled): `data` is an array of task objects. An event whose `data`
-- holds no task (empty, absent, or not an array) keeps one row with a null task, so no event
-- is lost; `data` sent but not an array is counted as untypable. Deliveries are not merged
-- here (one row per event and item): marts pick the latest event per task.

with

source as (

    select * from {{ typed_source('webhooks', 'events') }}
    where family = 'task'

),

items as (

    select
        source.event_key,
        source.event_type,
        source.event_timestamp,
        source.received_at,
        {{ event_time_implausible('source') }} as is_event_time_implausible,
        source.untypable_value_count
        + case
            when json_type(source.payload -> 'data') not in ('ARRAY', 'NULL') then 1 else 0
        end as untypable_value_count,
        unnest(
            coalesce(
                nullif(json_extract(source.payload, '$.data[*]'), []), [cast(null as json)]
            )
        ) as item,
        generate_subscripts(
            coalesce(
                nullif(json_extract(source.payload, '$.data[*]'), []), [cast(null as json)]
            ),
            1
        ) as item_number
    from source

),

typed as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        received_at,
        is_event_time_implausible,
        item_number,
        {{ json_field('task_id', 'item') }} as task_id,
        {{ json_field('task_board_id', 'item') }} as task_board_id,
        {{ json_field('task_title', 'item') }} as task_title,
        {{ json_field('status', 'item') }} as status,
        {{ json_field('task_type', 'item') }} as task_type,
        {{ json_field('starts_at', 'item') }} as starts_at,
        {{ json_field('due_at', 'item') }} as due_at,
        {{ json_field('is_archived', 'item') }} as is_archived,
        {{ json_field('user_ids', 'item') }} as user_ids_json,
        untypable_value_count + {{ untypable_item_fields('item', 'data') }}
            as untypable_value_count
    from items

),

user_lists as (

    select
        *,
        -- each userIds value typed as typed_value types a bigint: digits only, within 64 bits
        list_transform(
            json_extract_string(
                case when json_type(user_ids_json) = 'ARRAY' then user_ids_json end, '$[*]'
            ),
            lambda user_id: case
                when regexp_full_match(trim(user_id), '[+-]?[0-9]+')
                    then try_cast(trim(user_id) as bigint)
            end
        ) as user_id_list
    from typed

),

final as (

    select
        event_key,
        event_type,
        event_at,
        received_at,
        is_event_time_implausible,
        task_id,
        task_board_id,
        task_title,
        status,
        task_type,
        starts_at,
        due_at,
        is_archived,
        list_sort(list_distinct(user_id_list)) as user_ids,
        event_type = 'task_completed' or coalesce(status = 'completed', false) as is_completed,
        case
            when event_type = 'task_completed' or status = 'completed' then event_at
        end as completed_at,
        -- userIds sent (not JSON null) but not a list, or holding a value that is no integer
        untypable_value_count + case
            when json_type(user_ids_json) not in ('ARRAY', 'NULL') then 1
            when
                list_count(json_extract_string(user_ids_json, '$[*]'))
                > coalesce(list_count(user_id_list), 0)
                then 1
            else 0
        end as untypable_value_count,
        {{ readable_key(['event_key', 'task_id', 'item_number']) }} as task_event_key
    from user_lists

)

select * from final
