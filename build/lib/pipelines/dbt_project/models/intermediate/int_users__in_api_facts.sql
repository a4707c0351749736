-- Every user id the API's facts name (shifts, time activities, form submissions, time-off
-- requests, scheduler unavailabilities), so dim_users can add a user the users listing does not
-- hold as an inferred member.

with

shift_users as (

    select user_id from {{ ref('stg_connecteam__shifts') }}

),

activity_users as (

    select user_id from {{ ref('stg_connecteam__time_activities') }}

),

submission_users as (

    select user_id from {{ ref('stg_connecteam__form_submissions') }}

),

time_off_users as (

    select user_id from {{ ref('stg_connecteam__time_off_requests') }}

),

unavailability_users as (

    select user_id from {{ ref('stg_connecteam__scheduler_unavailabilities') }}

),

final as (

    select user_id from shift_users
    union
    select user_id from activity_users
    union
    select user_id from submission_users
    union
    select user_id from time_off_users
    union
    select user_id from unavailability_users

)

select * from final
where user_id is not null
