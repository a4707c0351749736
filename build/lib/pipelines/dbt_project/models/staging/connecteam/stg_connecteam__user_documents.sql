-- One row per user document (beta endpoint: its record shape is not published; every column
-- may be absent and is then null).

with

source as (

    select * from {{ typed_source('connecteam', 'user_documents') }}

),

renamed as (

    select
        id as user_document_id,
        user_id,
        document_id,
        document_name,
        document_type,
        pack_id,
        status,
        created_at,
        updated_at,
        untypable_value_count

    from source

)

select * from renamed
