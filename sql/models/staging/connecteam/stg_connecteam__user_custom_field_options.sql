-- One row per option of a dropdown user custom field (the label of the id a user's value holds).
-- A record the provider stopped returning is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'user_custom_field_options') }}

),

renamed as (

    select
        user_custom_field_option_key,
        custom_field_id,
        id as option_id,
        value as option_label,
        is_disabled,
        deleted_at,
        untypable_value_count,
        coalesce(is_option_deleted, false) as is_option_deleted,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
