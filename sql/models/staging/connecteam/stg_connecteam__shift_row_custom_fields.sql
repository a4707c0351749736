-- One row per shift row from the API x custom field value it carries (customFields: the field
-- and its value; items that are not objects are skipped; a field listed twice in one row keeps
-- its first item).

with

source as (

    select * from {{ typed_source('connecteam', 'shifts') }}

),

unnested as (

    select
        source.scheduler_id,
        source.id as slot_id,
        source.untypable_value_count,
        items.custom_field,
        items.item_number
    from source
    cross join
        lateral {{ json_items('source.custom_fields') }}
        with ordinality as items (custom_field, item_number)

),

renamed as (

    select
        scheduler_id,
        slot_id,
        item_number,
        {{ json_field('custom_field_id', 'custom_field') }} as custom_field_id,
        {{ json_field('custom_field_name', 'custom_field') }} as custom_field_name,
        {{ json_field('custom_field_type', 'custom_field') }} as custom_field_type,
        {{ json_field('value_json', 'custom_field') }} as value_json,
        {{ json_text('custom_field', 'value') }} as value_text,
        untypable_value_count + {{ untypable_item_fields('custom_field') }}
            as untypable_value_count

    from unnested
    where {{ is_json_object('custom_field') }}

),

numbered as (

    select
        *,
        {{ readable_key([
            'scheduler_id', 'slot_id',
            "coalesce(cast(custom_field_id as varchar), '#' || item_number)"
        ]) }} as shift_row_custom_field_key
    from renamed

),

ranked as (

    select
        *,
        row_number() over (
            partition by shift_row_custom_field_key order by item_number
        ) as key_rank
    from numbered

)

select
    scheduler_id,
    slot_id,
    custom_field_id,
    custom_field_name,
    custom_field_type,
    value_json,
    value_text,
    untypable_value_count,
    shift_row_custom_field_key
from ranked
where key_rank = 1
