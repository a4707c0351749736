{%- set columns = {
    'form_id': 'bigint', 'form_name': 'varchar', 'questions': 'json', 'settings': 'json',
    'created_at': 'bigint', 'last_updated_at': 'bigint'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'forms', columns) }}

),

renamed as (

    select
        untypable_value_count,
        form_id,
        form_name,
        questions,
        settings,
        {{ epoch_to_utc('created_at') }} as created_at,
        {{ epoch_to_utc('last_updated_at') }} as last_updated_at,
        case
            when json_type(questions) = 'ARRAY' then json_array_length(questions) else 0
        end as question_count,
        try_cast(settings ->> 'isAnonymous' as boolean) as is_anonymous

    from source

)

select * from renamed
