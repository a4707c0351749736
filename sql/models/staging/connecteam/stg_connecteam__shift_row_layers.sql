-- One row per shift row from the API (a V1 assignment, or a V2 shift) x shift layer it carries
-- (shiftDetails.shiftLayers: the layer and the value chosen; items that are not objects are
-- skipped; a layer listed twice in one row keeps its first item).

with

source as (

    select * from {{ typed_source('connecteam', 'shifts') }}

),

unnested as (

    select
        source.scheduler_id,
        source.id as slot_id,
        source.untypable_value_count,
        items.layer,
        items.item_number
    from source
    cross join
        lateral {{ json_items(json_get('source.shift_details', 'shiftLayers')) }}
        with ordinality as items (layer, item_number)

),

renamed as (

    select
        scheduler_id,
        slot_id,
        item_number,
        {{ json_field('layer_id', 'layer') }} as layer_id,
        {{ json_field('layer_title', 'layer') }} as layer_title,
        {{ json_field('value_id', 'layer') }} as value_id,
        {{ json_field('value_display_name', 'layer') }} as value_display_name,
        untypable_value_count + {{ untypable_item_fields('layer', 'shiftLayers') }}
            as untypable_value_count

    from unnested
    where {{ is_json_object('layer') }}

),

numbered as (

    select
        *,
        {{ readable_key([
            'scheduler_id', 'slot_id', "coalesce(layer_id, '#' || item_number)"
        ]) }} as shift_row_layer_key
    from renamed

),

ranked as (

    select
        *,
        row_number() over (partition by shift_row_layer_key order by item_number) as key_rank
    from numbered

)

select
    scheduler_id,
    slot_id,
    layer_id,
    layer_title,
    value_id,
    value_display_name,
    untypable_value_count,
    shift_row_layer_key
from ranked
where key_rank = 1
