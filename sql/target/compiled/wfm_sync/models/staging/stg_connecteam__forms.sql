with

source as (

    select * from "warehouse"."connecteam"."forms"

),

renamed as (

    select
        form_id,
        form_name,
        questions,
        settings,
        to_timestamp(nullif(cast(created_at as bigint), 0)) as created_at,
        to_timestamp(nullif(cast(last_updated_at as bigint), 0)) as last_updated_at,
        coalesce(json_array_length(questions), 0) as question_count,
        cast(settings ->> 'isAnonymous' as boolean) as is_anonymous

    from source

)

select * from renamed