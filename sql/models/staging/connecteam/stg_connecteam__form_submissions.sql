-- One row per form submission; answers stay JSON, each with its questionType.

with

source as (

    select * from {{ typed_source('connecteam', 'form_submissions') }}

),

renamed as (

    select
        form_submission_id,
        form_id,
        entry_num,
        submission_timestamp as submitted_at,
        submission_timezone,
        submission_start_timestamp as started_at,
        submitting_user_id as user_id,
        is_anonymous,
        answers,
        untypable_value_count,
        case when json_type(answers) = 'ARRAY' then json_array_length(answers) else 0 end
            as answer_count

    from source

)

select * from renamed
