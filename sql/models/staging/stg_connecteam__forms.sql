-- One row per form.

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
        untypable_value_count,
        case
            when json_type(questions) = 'ARRAY' then json_array_length(questions) else 0
        end as question_count

    from source

)

select * from renamed
