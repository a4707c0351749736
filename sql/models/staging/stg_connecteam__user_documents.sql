{%- set columns = {
    'id': 'bigint', 'user_id': 'bigint', 'document_id': 'bigint', 'document_name': 'varchar',
    'document_type': 'varchar', 'pack_id': 'bigint', 'status': 'varchar',
    'created_at': 'bigint', 'updated_at': 'bigint'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'user_documents', columns) }}

),

renamed as (

    select
        untypable_value_count,
        id as user_document_id,
        user_id,
        document_id,
        document_name,
        document_type,
        pack_id,
        status,
        {{ epoch_to_utc('created_at') }} as created_at,
        {{ epoch_to_utc('updated_at') }} as updated_at

    from source

)

select * from renamed
