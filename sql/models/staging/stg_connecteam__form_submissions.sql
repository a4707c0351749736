-- One row per form submission; answers stay JSON, each with its questionType.
{% set columns = {
    'form_submission_id': 'varchar', 'form_id': 'bigint', 'entry_num': 'bigint',
    'submission_timestamp': 'bigint', 'submission_timezone': 'timezone',
    'submission_start_timestamp': 'bigint', 'submitting_user_id': 'bigint',
    'is_anonymous': 'boolean', 'answers': 'json'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'form_submissions', columns) }}

),

renamed as (

    select
        untypable_value_count,
        form_submission_id,
        form_id,
        entry_num,
        {{ epoch_to_utc('submission_timestamp') }} as submitted_at,
        submission_timezone,
        {{ epoch_to_utc('submission_start_timestamp') }} as started_at,
        submitting_user_id as user_id,
        is_anonymous,
        answers,
        case when json_type(answers) = 'ARRAY' then json_array_length(answers) else 0 end
            as answer_count

    from source

)

select * from renamed
