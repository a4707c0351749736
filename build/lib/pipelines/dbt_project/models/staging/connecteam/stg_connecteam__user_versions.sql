-- One row per version of a user record the sync loaded (user_versions is append-only): the
-- record as the API returned it, with the sync's time (observed_at).

with

source as (

    select * from {{ typed_source('connecteam', 'user_versions') }}

),

renamed as (

    select
        version_key as user_version_key,
        user_id,
        first_name,
        last_name,
        user_type,
        email,
        custom_fields,
        modified_at,
        observed_at,
        untypable_value_count,
        trim(concat_ws(' ', first_name, last_name)) as full_name,
        coalesce(is_archived, false) as is_archived

    from source

)

select * from renamed
