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
            when {{ json_type_name("source.payload -> 'data'") }} not in ('array', 'null') then 1
            else 0
        end as untypable_value_count,
        data_items.item,
        coalesce(data_items.item_number, 1) as item_number
    from source
    left join
        lateral {{ json_items("source.payload -> 'data'") }}
        with ordinality as data_items (item, item_number)
        on true

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

    -- each userIds value typed as typed_value types a bigint: digits only, within 64 bits
    select
        typed.*,
        id_lists.listed_count,
        id_lists.typed_count,
        case
            when {{ is_json_array('typed.user_ids_json') }}
                then coalesce(id_lists.user_ids, cast(array[] as bigint[]))
        end as user_ids
    from typed
    left join lateral (
        {%- set user_id = typed_value(json_text('ids.item', ''), 'bigint') %}
        select
            count({{ json_text('ids.item', '') }}) as listed_count,
            count({{ user_id }}) as typed_count,
            array_agg(distinct {{ user_id }} order by {{ user_id }})
            filter (where {{ user_id }} is not null) as user_ids
        from {{ json_items('typed.user_ids_json') }} as ids (item)
    ) as id_lists on true

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
        user_ids,
        event_type = 'task_completed' or coalesce(status = 'completed', false) as is_completed,
        case
            when event_type = 'task_completed' or status = 'completed' then event_at
        end as completed_at,
        -- userIds sent (not JSON null) but not a list, or holding a value that is no integer
        untypable_value_count + case
            when {{ json_type_name('user_ids_json') }} not in ('array', 'null') then 1
            when listed_count > typed_count then 1
            else 0
        end as untypable_value_count,
        {{ readable_key([
            'event_key', "coalesce(task_id, 'no-task')", 'item_number'
        ]) }} as task_event_key
    from user_lists

)

select * from final
