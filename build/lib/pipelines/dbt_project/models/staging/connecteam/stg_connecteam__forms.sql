-- One row per form.
-- A record the provider stopped returning is kept, flagged is_deleted; deleted_at is when the
-- sync found it gone.

with

source as (

    select * from {{ typed_source('connecteam', 'forms') }}

),

renamed as (

    select
        form_id,
        form_name,
        questions,
        settings,
        created_at,
        last_updated_at,
        is_anonymous,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted,
        {{ json_array_size('questions') }} as question_count

    from source

)

select * from renamed
