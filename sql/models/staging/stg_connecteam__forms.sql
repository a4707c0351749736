with

source as (

    select * from {{ source('connecteam', 'forms') }}

),

renamed as (

    select
        form_id,
        form_name,
        questions,
        settings,
        {{ epoch_to_utc('created_at') }} as created_at,
        {{ epoch_to_utc('last_updated_at') }} as last_updated_at,
        coalesce(json_array_length(questions), 0) as question_count,
        cast(settings ->> 'isAnonymous' as boolean) as is_anonymous

    from source

)

select * from renamed
