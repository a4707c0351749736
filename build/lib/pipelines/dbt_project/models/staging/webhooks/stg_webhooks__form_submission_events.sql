-- One row per form webhook event: form_submission and form_submission_edited carry the whole
-- submission with its answers, manager_field_updated the submission's manager fields (`data`
-- is one object). Answers and manager fields stay JSON, each read only from the events that
-- carry it. Every delivery is a row of its own: marts pick the latest event per submission.

with

source as (

    select * from {{ typed_source('webhooks', 'events') }}
    where family = 'form'

),

renamed as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        received_at,
        {{ event_time_implausible() }} as is_event_time_implausible,
        form_submission_id,
        form_id,
        submitting_user_id,
        entry_num,
        submitted_at,
        submission_timezone,
        started_at,
        is_anonymous,
        case
            when event_type in ('form_submission', 'form_submission_edited') then answers
        end as answers,
        case when event_type = 'manager_field_updated' then manager_fields end as manager_fields,
        case
            when event_type not in ('form_submission', 'form_submission_edited') then null
            else {{ json_array_size('answers') }}
        end as answer_count,
        event_type = 'form_submission_edited' as is_edit,
        untypable_value_count

    from source

)

select * from renamed
