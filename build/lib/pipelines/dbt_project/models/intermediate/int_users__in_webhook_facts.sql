-- Every user id the webhooks' facts name (time activities, timesheet periods, availability
-- statuses, shift assignments), so dim_users can add a user no API listing holds as an
-- inferred member.

with

activity_users as (

    select user_id from {{ ref('stg_webhooks__time_activities') }}

),

timesheet_users as (

    select user_id from {{ ref('stg_webhooks__timesheet_periods') }}

),

availability_users as (

    select user_id from {{ ref('stg_webhooks__availability_statuses') }}

),

shift_users as (

    select user_id from {{ ref('stg_webhooks__shift_events') }}

),

final as (

    select user_id from activity_users
    union
    select user_id from timesheet_users
    union
    select user_id from availability_users
    union
    select user_id from shift_users

)

select * from final
where user_id is not null
