-- One row per scheduler x shift layer (position, location, department...).
-- A record the provider stopped returning is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'shift_layers') }}

),

renamed as (

    select
        shift_layer_key,
        scheduler_id,
        id as layer_id,
        title as layer_title,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
