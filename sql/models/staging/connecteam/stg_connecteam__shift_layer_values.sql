-- One row per scheduler x shift layer x value (a position, a location...).
-- A record the provider stopped returning is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'shift_layer_values') }}

),

renamed as (

    select
        shift_layer_value_key,
        scheduler_id,
        layer_id,
        id as value_id,
        display_name,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
