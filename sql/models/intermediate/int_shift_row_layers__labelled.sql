-- One row per shift row from the API x shift layer it carries, labelled with the scheduler's
-- current listings: the layer's title from shift_layers and the value's name from
-- shift_layer_values, where listed; else the names the shift itself carries (a layer or value
-- the provider no longer lists, or a sync that did not list them).

with

row_layers as (

    select * from {{ ref('stg_connecteam__shift_row_layers') }}

),

layers as (

    select * from {{ ref('stg_connecteam__shift_layers') }}

),

layer_values as (

    select * from {{ ref('stg_connecteam__shift_layer_values') }}

),

final as (

    select
        row_layers.shift_row_layer_key,
        row_layers.scheduler_id,
        row_layers.slot_id,
        row_layers.layer_id,
        coalesce(layers.layer_title, row_layers.layer_title) as layer_title,
        row_layers.value_id,
        coalesce(layer_values.display_name, row_layers.value_display_name) as value_name,
        coalesce(layer_values.value_id is not null and not layer_values.is_deleted, false)
            as is_listed_value

    from row_layers
    left join layers
        on
            row_layers.scheduler_id = layers.scheduler_id
            and row_layers.layer_id = layers.layer_id
    left join layer_values
        on
            row_layers.scheduler_id = layer_values.scheduler_id
            and row_layers.layer_id = layer_values.layer_id
            and row_layers.value_id = layer_values.value_id

)

select * from final
