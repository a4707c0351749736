-- Everything the day-grain incremental marts (fct_daily_hours, fct_labour_cost_daily) read for
-- a user's local day, one row per input, each with a digest of what the marts read from it:
--   point inputs, on one user-day: paid_time (int_time_activities__paid_time, a punch or break
--   on its day), shift (int_shift_assignments__detailed: an assignment on the schedule), time_off
--   (int_time_off__days), timesheet (fct_timesheet_days: the provider's figures and pay);
--   pay_rate: a live rate record of a user, from its effective date on;
--   timesheet_pull_from / timesheet_pull_to: the first and last day the last timesheet pull
--   covered (variance_reason reads them), for every user;
--   settings: the dbt variables the marts read, for every user and day.
-- int_user_days__changes compares these rows with those of the previous build: a row added,
-- gone or with another digest names the user-days the marts re-derive.

with

paid_time as (

    select
        'paid_time' as input_source,
        paid_time_key as input_key,
        user_id,
        local_date,
        {{ row_digest([
            'time_clock_id', 'activity_type', 'job_id', 'sub_job_id', 'started_at',
            'ended_at', 'data_source', 'is_open_punch', 'break_policy_known', 'worked_hours',
            'overlapping_punch_hours', 'paid_break_hours', 'unpaid_break_hours', 'unknown_policy_break_hours',
            'paid_hours',
        ]) }} as input_digest
    from {{ ref('int_time_activities__paid_time') }}

),

shifts as (

    select
        'shift' as input_source,
        shift_assignment_key as input_key,
        user_id,
        local_date,
        {{ row_digest(['scheduled_hours']) }} as input_digest
    from {{ ref('int_shift_assignments__detailed') }}
    where is_scheduled and user_id is not null

),

time_off as (

    select
        'time_off' as input_source,
        time_activity_id as input_key,
        user_id,
        local_date,
        {{ row_digest([
            'hours', 'data_source', 'is_open_punch', 'activity_type',
        ]) }} as input_digest
    from {{ ref('int_time_off__days') }}

),

timesheets as (

    select
        'timesheet' as input_source,
        timesheet_day_key as input_key,
        user_id,
        work_date as local_date,
        {{ row_digest([
            'time_clock_id', 'total_hours', 'work_hours', 'paid_break_hours',
            'unpaid_break_hours', 'is_approved', 'total_pay', 'has_total_pay',
        ]) }} as input_digest
    from {{ ref('fct_timesheet_days') }}
    where user_id is not null and work_date is not null

),

pay_rates as (

    select
        'pay_rate' as input_source,
        pay_rate_key as input_key,
        user_id,
        effective_date as local_date,
        {{ row_digest([
            'rate_type', 'rate_kind', 'resource_id', 'sub_resource_id', 'rate',
            'is_resource_rate_enabled', 'is_using_default_rate', 'is_using_parent_rate',
        ]) }} as input_digest
    from {{ ref('stg_connecteam__pay_rates') }}
    where not is_deleted and effective_date is not null and user_id is not null

),

pull as (

    select
        min(cast(window_from as date)) as covered_from_date,
        max(cast(pulled_at as date)) as pulled_date
    from {{ ref('stg_connecteam__time_activity_coverage') }}

),

pull_bounds as (

    select
        'timesheet_pull_from' as input_source,
        'all' as input_key,
        cast(null as bigint) as user_id,
        covered_from_date as local_date,
        'bound' as input_digest
    from pull
    where covered_from_date is not null

    union all

    select
        'timesheet_pull_to' as input_source,
        'all' as input_key,
        cast(null as bigint) as user_id,
        pulled_date as local_date,
        'bound' as input_digest
    from pull
    where pulled_date is not null

),

settings as (

    select
        'settings' as input_source,
        'vars' as input_key,
        cast(null as bigint) as user_id,
        cast(null as date) as local_date,
        {{ row_digest(["'" ~ user_day_settings() ~ "'"]) }} as input_digest

),

final as (

    select * from paid_time
    union all
    select * from shifts
    union all
    select * from time_off
    union all
    select * from timesheets
    union all
    select * from pay_rates
    union all
    select * from pull_bounds
    union all
    select * from settings

)

select * from final
