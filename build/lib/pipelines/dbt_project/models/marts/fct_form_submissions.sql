-- One row per form submission, with its form and submitting user, showing its latest version:
--   * the API row, as of the sync that read it (synced_at; the sync re-reads the submissions
--     of the last form_submissions_days_back days (7) before the newest one per form and
--     reloads those whose record changed, so an edit after the sync, or of an older submission,
--     reaches us only by webhook). Its version time is the latest of synced_at, its
--     submissionTimestamp and its answers' updateTimestamp (at any depth);
--   * the latest form_submission_edited event (by event time, duplicates and arrival order
--     alike) replaces the API row's answers when it happened after that version time (or the
--     API row has none): an API row reloaded after the edit keeps its own answers;
--   * a submission the API has not pulled yet is shown from its latest form_submission or
--     form_submission_edited event, and one known only from a manager_field_updated event
--     from that event (no answers);
--   * manager_fields: the latest manager_field_updated event's managerFields when it happened
--     after the API row's version time, else the API's.
-- A submission's identity and times (form, user, entry number, submitted_at, started_at,
-- timezone) do not change with an edit: the API row's values first, then the chosen event's,
-- the latest form_submission event's and the latest manager_field_updated event's. The
-- submitting user of a submission the API holds is the API's only (dim_users holds every
-- user the API's facts name).

with

api as (

    select * from {{ ref('stg_connecteam__form_submissions') }}

),

events as (

    select * from {{ ref('stg_webhooks__form_submission_events') }}
    where form_submission_id is not null

),

forms as (

    select * from {{ ref('stg_connecteam__forms') }}

),

users as (

    select * from {{ ref('dim_users') }}

),

answer_stamps as (

    select
        api.form_submission_id,
        {{ try_cast(json_text('stamps.stamp', ''), 'float8') }} as stamp_seconds
    from api
    cross join lateral {{ json_values_under_key('api.answers', 'updateTimestamp') }}
        as stamps (stamp)

),

api_answer_stamps as (

    select
        form_submission_id,
        max(
            case
                when stamp_seconds between 1 and 253402300799 then to_timestamp(stamp_seconds)
            end
        ) as answers_updated_at
    from answer_stamps
    group by form_submission_id

),

api_versions as (

    select
        api.*,
        greatest(api.synced_at, api.submitted_at, api_answer_stamps.answers_updated_at)
            as version_at
    from api
    left join api_answer_stamps on api.form_submission_id = api_answer_stamps.form_submission_id

),

latest_sent as (

    {{ latest_event(
        'events', 'form_submission_id',
        where="event_type in ('form_submission', 'form_submission_edited')"
    ) }}

),

latest_original as (

    {{ latest_event('events', 'form_submission_id', where="event_type = 'form_submission'") }}

),

latest_edit as (

    {{ latest_event('events', 'form_submission_id', where='is_edit') }}

),

latest_manager as (

    {{ latest_event(
        'events', 'form_submission_id', where="event_type = 'manager_field_updated'"
    ) }}

),

edits as (

    select
        form_submission_id,
        max(event_at) as last_edited_at
    from events
    where is_edit
    group by form_submission_id

),

submission_ids as (

    select form_submission_id from api
    union
    select form_submission_id from events

),

chosen as (

    select
        submission_ids.form_submission_id,
        api_versions.form_submission_id is not null as is_pulled,
        case
            when api_versions.form_submission_id is null then latest_sent.event_key
            when
                coalesce(
                    latest_edit.event_at > api_versions.version_at,
                    latest_edit.event_at is not null
                )
                then latest_edit.event_key
        end as newer_event_key
    from submission_ids
    left join api_versions on submission_ids.form_submission_id = api_versions.form_submission_id
    left join latest_sent on submission_ids.form_submission_id = latest_sent.form_submission_id
    left join latest_edit on submission_ids.form_submission_id = latest_edit.form_submission_id

),

combined as (

    select
        chosen.form_submission_id,
        chosen.is_pulled,
        coalesce(api.form_id, newer.form_id, original.form_id, manager.form_id) as form_id,
        case
            when chosen.is_pulled then api.user_id
            else coalesce(newer.submitting_user_id, original.submitting_user_id)
        end as user_id,
        coalesce(api.entry_num, newer.entry_num, original.entry_num, manager.entry_num)
            as entry_num,
        coalesce(
            api.submitted_at, newer.submitted_at, original.submitted_at, manager.submitted_at
        ) as submitted_at,
        coalesce(api.started_at, newer.started_at, original.started_at) as started_at,
        coalesce(
            api.submission_timezone,
            newer.submission_timezone,
            original.submission_timezone,
            manager.submission_timezone
        ) as submission_timezone,
        coalesce(newer.answers, api.answers) as answers,
        case
            when newer.answers is not null then newer.answer_count else api.answer_count
        end as answer_count,
        case
            when newer.answers is not null then 'webhook'
            when chosen.is_pulled then 'api'
        end as answers_source,
        edits.last_edited_at,
        case
            when
                not chosen.is_pulled
                or coalesce(
                    manager.event_at > api_versions.version_at, manager.event_at is not null
                )
                then manager.manager_fields
            else api.manager_fields
        end as manager_fields
    from chosen
    left join api on chosen.form_submission_id = api.form_submission_id
    left join api_versions on chosen.form_submission_id = api_versions.form_submission_id
    left join events as newer on chosen.newer_event_key = newer.event_key
    left join latest_original as original
        on chosen.form_submission_id = original.form_submission_id
    left join latest_manager as manager on chosen.form_submission_id = manager.form_submission_id
    left join edits on chosen.form_submission_id = edits.form_submission_id

),

final as (

    select
        combined.form_submission_id,
        combined.form_id,
        forms.form_name,
        combined.user_id,
        users.full_name as user_full_name,
        combined.entry_num,
        combined.submitted_at,
        combined.started_at,
        combined.submission_timezone,
        {{ local_date('combined.submitted_at', 'combined.submission_timezone') }} as local_date,
        {{ epoch_seconds('combined.submitted_at - combined.started_at') }} as fill_seconds,
        combined.answer_count,
        combined.answers,
        combined.answers_source,
        combined.last_edited_at,
        combined.manager_fields,
        combined.is_pulled
    from combined
    left join forms on combined.form_id = forms.form_id
    left join users on combined.user_id = users.user_id

)

select * from final
