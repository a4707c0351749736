-- One row per scheduler x shift custom field (its settings: name, type, dropdown options).
-- A record the provider stopped returning is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'shift_custom_fields') }}

),

renamed as (

    select
        shift_custom_field_key,
        scheduler_id,
        id as custom_field_id,
        name as custom_field_name,
        type as custom_field_type,
        is_multi_select,
        dropdown_options,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
