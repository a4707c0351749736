{#- A lateral subquery of the distinct integer ids in the JSON list `json_column` (an item that
    is not an integer id is left out), each as `id_name`. Joined `left join lateral ... on true`,
    a row whose list holds none keeps one row with a null id. Used for a shift row's
    assignedUserIds and a user's smartGroupsIds. -#}
{% macro distinct_json_ids(json_column, id_name) -%}
    (
        select distinct {{ try_cast(json_text('ids.item', ''), 'bigint') }} as {{ id_name }}
        from {{ json_items(json_column) }} as ids (item)
        where {{ try_cast(json_text('ids.item', ''), 'bigint') }} is not null
    )
{%- endmacro %}

{#- The options a dropdown value chose, one row per `{id, value}` item of `relation`'s JSON list
    `value_column` (items that are not objects are skipped): `relation`'s `columns`, the item's
    `item_number` (its place in the list), `option_id` (its id, as text) and `carried_label`
    (the label the value itself carries). -#}
{% macro chosen_options(relation, value_column, columns) -%}
    select
        {%- for column in columns %}
        {{ relation }}.{{ column }},
        {%- endfor %}
        items.item_number,
        {{ json_text('items.choice', 'id') }} as option_id,
        {{ json_text('items.choice', 'value') }} as carried_label
    from {{ relation }}
    cross join
        lateral {{ json_items(relation ~ '.' ~ value_column) }}
        with ordinality as items (choice, item_number)
    where {{ is_json_object('items.choice') }}
{%- endmacro %}
