-- One row per form submission, with its form and submitting user.

with

submissions as (

    select * from {{ ref('stg_connecteam__form_submissions') }}

),

forms as (

    select * from {{ ref('stg_connecteam__forms') }}

),

users as (

    select * from {{ ref('dim_users') }}

),

final as (

    select
        submissions.form_submission_id,
        submissions.form_id,
        forms.form_name,
        submissions.user_id,
        users.full_name as user_full_name,
        submissions.entry_num,
        submissions.submitted_at,
        submissions.started_at,
        submissions.submission_timezone,
        try_cast(submissions.submitted_at at time zone submissions.submission_timezone as date)
            as local_date,
        epoch(submissions.submitted_at - submissions.started_at) as fill_seconds,
        submissions.answer_count,
        submissions.answers
    from submissions
    left join forms on submissions.form_id = forms.form_id
    left join users on submissions.user_id = users.user_id

)

select * from final
