-- User x local day: scheduled hours (live, published shift assignments) next to the hours
-- worked by the provider's rule (int_time_activities__paid_time: punches are work, a manual
-- break is its own interval, only a break's overlap with a punch is taken from it; breaks paid
-- or unpaid by their policy), time-off hours, and the provider's own timesheet figures for the
-- day (fct_timesheet_days, summed over the user's time clocks) with the variance and its reason.
-- Each shift and punch counts on the local day of its start, in its own timezone (a punch on a
-- clock that counts overnight hours on the next day: each day's part on its day, as the
-- provider counts it); a break on its punch's day. A time off's hours (its duration,
-- fct_time_activities.duration_hours) are spread evenly over its local days: from its start's
-- day through its end's day (an end at local midnight ends the day before), or, without an
-- end, ceil(hours / var('time_off_hours_per_day')) days from its start (at least one); more
-- days than var('time_off_max_request_days') (or an unknown start day) put the whole time off
-- on the row with local_date null. hours_source says which feed the day's activities came
-- from: api, webhooks, mixed, or none (scheduled only).
-- variance_reason, when worked_hours and the provider's work hours differ by more than
-- var('timesheet_match_tolerance_hours'): not_in_timesheet_yet (no timesheet row, and the day
-- lies outside what the last timesheet pull covered: before its window or after its day),
-- overlapping_punches (the provider's hours are ours plus the hours the user's overlapping
-- punches share: we count their union), webhook_only_day (webhooks brought activities the pull
-- could not see), policy_unknown (a break whose policy is not synced), unapproved (the provider
-- has not approved the day: it may still change), else unexplained.
-- Incremental (macros/incremental.sql): a build re-derives the user-days whose inputs changed
-- since its last build (int_user_days__changes), at any age, and keeps the others.

-- depends_on: {{ ref('int_user_days__changes') }}
{%- set since = user_day_changes_since() %}

{{ config(
    materialized='incremental',
    unique_key='daily_hours_key',
    incremental_strategy='delete+insert',
    pre_hook="{{ delete_changed_user_days() }}",
    post_hook=[
        "{{ record_incremental_build(1) }}",
        "{{ record_incremental_build(2) }}",
    ],
) }}

with

shifts as (

    select
        user_id,
        scheduled_hours,
        local_date
    from {{ ref('int_shift_assignments__detailed') }}
    where is_scheduled and user_id is not null

),

scheduled as (

    select
        user_id,
        local_date,
        sum(scheduled_hours) as scheduled_hours,
        count(*) as shift_count
    from shifts
    where {{ changed_user_day('user_id', 'local_date', since) }}
    group by user_id, local_date

),

time_off as (

    select
        user_id,
        local_date,
        sum(coalesce(hours, 0)) as time_off_hours,
        count(*) filter (where data_source = 'api') as api_activity_count,
        count(*) filter (where data_source = 'webhooks') as webhook_activity_count
    from {{ ref('int_time_off__days') }}
    where {{ changed_user_day('user_id', 'local_date', since) }}
    group by user_id, local_date

),

paid_time as (

    select
        user_id,
        local_date,
        sum(worked_hours) as worked_hours,
        sum(overlapping_punch_hours) as overlapping_punch_hours,
        sum(paid_break_hours) as paid_break_hours,
        sum(unpaid_break_hours) as unpaid_break_hours,
        sum(unknown_policy_break_hours) as unknown_policy_break_hours,
        sum(paid_hours) as paid_hours,
        bool_and(break_policy_known) as break_policy_known,
        count(*) filter (where activity_type = 'shift') as punch_count,
        count(*) filter (where is_open_punch) as open_punch_count,
        count(*) filter (where data_source = 'api') as api_activity_count,
        count(*) filter (where data_source = 'webhooks') as webhook_activity_count
    from {{ ref('int_time_activities__paid_time') }}
    where {{ changed_user_day('user_id', 'local_date', since) }}
    group by user_id, local_date

),

worked as (

    select
        coalesce(paid_time.user_id, time_off.user_id) as user_id,
        coalesce(paid_time.local_date, time_off.local_date) as local_date,
        coalesce(paid_time.worked_hours, 0) as worked_hours,
        coalesce(paid_time.overlapping_punch_hours, 0) as overlapping_punch_hours,
        coalesce(paid_time.paid_break_hours, 0) as paid_break_hours,
        coalesce(paid_time.unpaid_break_hours, 0) as unpaid_break_hours,
        coalesce(paid_time.unknown_policy_break_hours, 0) as unknown_policy_break_hours,
        coalesce(paid_time.paid_hours, 0) as paid_hours,
        coalesce(paid_time.break_policy_known, true) as break_policy_known,
        coalesce(time_off.time_off_hours, 0) as time_off_hours,
        coalesce(paid_time.punch_count, 0) as punch_count,
        coalesce(paid_time.open_punch_count, 0) as open_punch_count,
        coalesce(paid_time.api_activity_count, 0) + coalesce(time_off.api_activity_count, 0)
            as api_activity_count,
        coalesce(paid_time.webhook_activity_count, 0)
        + coalesce(time_off.webhook_activity_count, 0) as webhook_activity_count
    from paid_time
    full outer join time_off
        on
            paid_time.user_id = time_off.user_id
            and paid_time.local_date is not distinct from time_off.local_date

),

timesheet as (

    select
        user_id,
        work_date,
        sum(work_hours) as provider_work_hours,
        sum(paid_break_hours) as provider_paid_break_hours,
        sum(unpaid_break_hours) as provider_unpaid_break_hours,
        sum(total_hours) as provider_total_hours,
        bool_and(is_approved) as is_approved
    from {{ ref('fct_timesheet_days') }}
    where
        user_id is not null
        and work_date is not null
        and {{ changed_user_day('user_id', 'work_date', since) }}
    group by user_id, work_date

),

-- the days the last timesheet pull covered: from its window's first day to the day it ran
pull as (

    select
        min(cast(window_from as date)) as covered_from_date,
        max(cast(pulled_at as date)) as pulled_date
    from {{ ref('stg_connecteam__time_activity_coverage') }}

),

joined as (

    select
        coalesce(scheduled.user_id, worked.user_id, timesheet.user_id) as user_id,
        coalesce(scheduled.local_date, worked.local_date, timesheet.work_date) as local_date,
        {{ round_to('coalesce(scheduled.scheduled_hours, 0)', 4) }} as scheduled_hours,
        {{ round_to('coalesce(worked.worked_hours, 0)', 4) }} as worked_hours,
        {{ round_to('coalesce(worked.overlapping_punch_hours, 0)', 4) }}
            as overlapping_punch_hours,
        {{ round_to('coalesce(worked.paid_break_hours, 0)', 4) }} as paid_break_hours,
        {{ round_to('coalesce(worked.unpaid_break_hours, 0)', 4) }} as unpaid_break_hours,
        {{ round_to('coalesce(worked.unknown_policy_break_hours, 0)', 4) }}
            as unknown_policy_break_hours,
        {{ round_to('coalesce(worked.paid_hours, 0)', 4) }} as paid_hours,
        coalesce(worked.break_policy_known, true) as break_policy_known,
        {{ round_to('coalesce(worked.time_off_hours, 0)', 4) }} as time_off_hours,
        coalesce(scheduled.shift_count, 0) as shift_count,
        coalesce(worked.punch_count, 0) as punch_count,
        coalesce(worked.open_punch_count, 0) as open_punch_count,
        timesheet.user_id is not null as is_in_timesheet,
        {{ round_to('timesheet.provider_work_hours', 4) }} as provider_work_hours,
        {{ round_to('timesheet.provider_paid_break_hours', 4) }} as provider_paid_break_hours,
        {{ round_to('timesheet.provider_unpaid_break_hours', 4) }}
            as provider_unpaid_break_hours,
        {{ round_to('timesheet.provider_total_hours', 4) }} as provider_total_hours,
        timesheet.is_approved as is_timesheet_approved,
        coalesce(worked.webhook_activity_count, 0) > 0 as has_webhook_activities,
        pull.covered_from_date,
        pull.pulled_date,
        case
            when worked.api_activity_count > 0 and worked.webhook_activity_count > 0 then 'mixed'
            when worked.api_activity_count > 0 then 'api'
            when worked.webhook_activity_count > 0 then 'webhooks'
            else 'none'
        end as hours_source
    from scheduled
    full outer join worked
        on
            scheduled.user_id = worked.user_id
            -- an unknown day (null) joins the same user's unknown day: one row, not two
            and scheduled.local_date is not distinct from worked.local_date
    full outer join timesheet
        on
            coalesce(scheduled.user_id, worked.user_id) = timesheet.user_id
            and coalesce(scheduled.local_date, worked.local_date) = timesheet.work_date
    cross join pull

),

compared as (

    select
        *,
        {{ round_to('worked_hours - coalesce(provider_work_hours, 0)', 4) }} as hours_variance,
        -- the pull's day is covered (its activities and timesheet came in one run); a later day
        -- or one before the window is not
        coalesce(local_date < covered_from_date or local_date > pulled_date, true)
            as is_outside_timesheet_pull
    from joined

),

final as (

    select
        user_id,
        local_date,
        scheduled_hours,
        worked_hours,
        overlapping_punch_hours,
        paid_break_hours,
        unpaid_break_hours,
        unknown_policy_break_hours,
        paid_hours,
        break_policy_known,
        time_off_hours,
        shift_count,
        punch_count,
        open_punch_count,
        hours_source,
        {{ round_to('worked_hours - scheduled_hours', 4) }} as variance_hours,
        is_in_timesheet,
        provider_work_hours,
        provider_paid_break_hours,
        provider_unpaid_break_hours,
        provider_total_hours,
        is_timesheet_approved,
        hours_variance,
        case
            when abs(hours_variance) <= {{ var('timesheet_match_tolerance_hours') }} then null
            when not is_in_timesheet and is_outside_timesheet_pull then 'not_in_timesheet_yet'
            -- the provider counted overlapping punches twice where we count their union
            when
                overlapping_punch_hours > 0
                and abs(hours_variance + overlapping_punch_hours)
                <= {{ var('timesheet_match_tolerance_hours') }}
                then 'overlapping_punches'
            when has_webhook_activities then 'webhook_only_day'
            when not break_policy_known then 'policy_unknown'
            when is_in_timesheet and not is_timesheet_approved then 'unapproved'
            else 'unexplained'
        end as variance_reason,
        {{ readable_key([
            'user_id', "coalesce(cast(local_date as varchar), 'unknown-day')"
        ]) }} as daily_hours_key
    from compared

)

select * from final
