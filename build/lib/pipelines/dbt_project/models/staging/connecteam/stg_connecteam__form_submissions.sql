-- One row per form submission; answers stay JSON, each with its questionType; synced_at is
-- when the sync read the row's version (it reloads a submission only when its record changed).

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
        manager_fields,
        synced_at,
        untypable_value_count,
        {{ json_array_size('answers') }} as answer_count

    from source

)

select * from renamed
