-- User x local day x job x sub-job: the hours paid (int_time_activities__paid_time: worked
-- hours by the provider's rule plus paid breaks, on the day and job of their punch; a paid break
-- outside punches has no job) and what they cost.
-- Where the provider's timesheet states the day's pay (fct_timesheet_days.total_pay, summed over
-- the user's time clocks: overtime and pay rules included), that is the cost (cost_source
-- provider), shared among the day's rows in proportion to their paid hours, to the cent (the
-- shares add up to the day's pay). Our hours lie on
-- the provider's days (a clock that counts overnight hours on the next day has them split at
-- local midnight: int_time_activities__paid_time); a day the provider pays where we have no
-- hours is a row of its own with no job and no hours of ours, costing the provider's pay. Elsewhere
-- the cost is our estimate (cost_source estimate): paid hours x the rate in effect, which knows
-- no overtime or pay rule. The rate record in effect is the user's latest effective date on or
-- before the day (live rates only); of it the sub-job's rate when job rates are enabled and the
-- sub-job has a rate of its own, else the job's, else the default rate. Monthly and yearly rates
-- are reported as they are; they cost hours x rate only when var('labour_cost_hours_per_month')
-- / var('labour_cost_hours_per_year') says how many hours such a rate pays.
-- Incremental (macros/incremental.sql): a build re-derives the user-days whose inputs changed
-- since its last build (int_user_days__changes: hours, the provider's pay, a user's rates from
-- their effective date on), at any age, and keeps the others.
{%- set per_month = var('labour_cost_hours_per_month') %}
{%- set per_year = var('labour_cost_hours_per_year') %}
-- depends_on: {{ ref('int_user_days__changes') }}
{%- set since = user_day_changes_since() %}

{{ config(
    materialized='incremental',
    unique_key='labour_cost_key',
    incremental_strategy='delete+insert',
    pre_hook="{{ delete_changed_user_days() }}",
    post_hook=[
        "{{ record_incremental_build(1) }}",
        "{{ record_incremental_build(2) }}",
    ],
    on_schema_change='append_new_columns',
) }}

with

punched as (

    select
        user_id,
        local_date,
        job_id,
        sub_job_id,
        count(*) filter (where activity_type = 'shift') as punch_count,
        {{ round_to('sum(worked_hours)', 4) }} as worked_hours,
        {{ round_to('sum(paid_hours)', 4) }} as paid_hours
    from {{ ref('int_time_activities__paid_time') }}
    where {{ changed_user_day('user_id', 'local_date', since) }}
    group by user_id, local_date, job_id, sub_job_id

),

provider_pay as (

    select
        user_id,
        work_date,
        sum(total_pay) as provider_day_pay
    from {{ ref('fct_timesheet_days') }}
    where
        user_id is not null
        and work_date is not null
        and {{ changed_user_day('user_id', 'work_date', since) }}
    group by user_id, work_date
    -- the day's pay only when every clock's day states it
    having bool_and(has_total_pay)

),

-- a day the provider pays where we have no hours (a clock counting an overnight shift's hours
-- past midnight on the next day before its timesheet told us so): a row of no hours of ours,
-- so the provider's pay for it is never dropped
provider_only_days as (

    select
        provider_pay.user_id,
        provider_pay.work_date as local_date,
        cast(null as varchar) as job_id,
        cast(null as varchar) as sub_job_id,
        0 as punch_count,
        0.0 as worked_hours,
        0.0 as paid_hours
    from provider_pay
    left join punched
        on
            provider_pay.user_id = punched.user_id
            and provider_pay.work_date = punched.local_date
    where punched.user_id is null

),

worked as (

    select * from punched
    union all
    select * from provider_only_days

),

rates as (

    select * from {{ ref('stg_connecteam__pay_rates') }}
    where not is_deleted and effective_date is not null and user_id is not null

),

effective_dates as (

    select distinct
        user_id,
        effective_date
    from rates

),

in_effect as (

    select
        worked.user_id,
        worked.local_date,
        worked.job_id,
        worked.sub_job_id,
        worked.punch_count,
        worked.worked_hours,
        worked.paid_hours,
        max(effective_dates.effective_date) as effective_date
    from worked
    left join effective_dates
        on
            worked.user_id = effective_dates.user_id
            and worked.local_date >= effective_dates.effective_date
    group by
        worked.user_id, worked.local_date, worked.job_id, worked.sub_job_id,
        worked.punch_count, worked.worked_hours, worked.paid_hours

),

default_rates as (

    select * from rates
    where rate_kind = 'default'

),

job_rates as (

    select * from rates
    where rate_kind = 'resource'

),

sub_job_rates as (

    select * from rates
    where rate_kind = 'sub_resource'

),

chosen as (

    select
        in_effect.*,
        default_rates.rate_type,
        default_rates.rate as default_rate,
        case
            when not coalesce(default_rates.is_resource_rate_enabled, false) then null
            when sub_job_rates.rate is not null and not sub_job_rates.is_using_parent_rate
                then sub_job_rates.rate
        end as sub_job_rate,
        case
            when not coalesce(default_rates.is_resource_rate_enabled, false) then null
            when
                coalesce(job_rates.resource_id, sub_job_rates.resource_id) is not null
                and not coalesce(
                    parent_rates.is_using_default_rate, job_rates.is_using_default_rate
                )
                then coalesce(parent_rates.rate, job_rates.rate)
        end as job_rate
    from in_effect
    left join default_rates
        on
            in_effect.user_id = default_rates.user_id
            and in_effect.effective_date = default_rates.effective_date
    left join job_rates
        on
            in_effect.user_id = job_rates.user_id
            and in_effect.effective_date = job_rates.effective_date
            and in_effect.job_id = job_rates.resource_id
    left join sub_job_rates
        on
            in_effect.user_id = sub_job_rates.user_id
            and in_effect.effective_date = sub_job_rates.effective_date
            and in_effect.job_id = sub_job_rates.resource_id
            and in_effect.sub_job_id = sub_job_rates.sub_resource_id
    left join job_rates as parent_rates
        on
            sub_job_rates.user_id = parent_rates.user_id
            and sub_job_rates.effective_date = parent_rates.effective_date
            and sub_job_rates.resource_id = parent_rates.resource_id

),

rated as (

    select
        *,
        coalesce(sub_job_rate, job_rate, default_rate) as rate,
        case
            when sub_job_rate is not null then 'sub_resource'
            when job_rate is not null then 'resource'
            when default_rate is not null then 'default'
            else 'none'
        end as rate_source
    from chosen

),

estimated as (

    select
        *,
        case
            when rate_type = 'hourly' then rate
            {%- if per_month is not none %}
                when rate_type = 'monthly' then rate / {{ per_month }}
            {%- endif %}
            {%- if per_year is not none %}
                when rate_type = 'yearly' then rate / {{ per_year }}
            {%- endif %}
        end as hourly_rate
    from rated

),

shared as (

    select
        estimated.*,
        provider_pay.provider_day_pay,
        sum(estimated.paid_hours) over same_day as day_paid_hours,
        count(*) over same_day as day_row_count,
        -- the day's rows in key order, to share the pay to the cent: each row takes the rounded
        -- share of the rows up to it less that of the rows before it, so the shares add up
        -- to the day's pay exactly
        coalesce(sum(estimated.paid_hours) over rows_before, 0) as paid_hours_before,
        sum(estimated.paid_hours) over rows_before_and_this as paid_hours_through,
        coalesce(count(*) over rows_before, 0) as rows_before
    from estimated
    left join provider_pay
        on
            estimated.user_id = provider_pay.user_id
            and estimated.local_date = provider_pay.work_date
    window
        same_day as (partition by estimated.user_id, estimated.local_date),
        in_key_order as (
            same_day order by
                coalesce(estimated.job_id, ''), coalesce(estimated.sub_job_id, '')
        ),
        rows_before as (in_key_order rows between unbounded preceding and 1 preceding),
        rows_before_and_this as (in_key_order rows between unbounded preceding and current row)

),

final as (

    select
        {{ readable_key([
            'user_id',
            "coalesce(cast(local_date as varchar), 'unknown-day')",
            "coalesce(job_id, 'no-job')",
            "coalesce(sub_job_id, 'no-sub-job')",
        ]) }} as labour_cost_key,
        user_id,
        local_date,
        job_id,
        sub_job_id,
        punch_count,
        worked_hours,
        paid_hours,
        effective_date as rate_effective_date,
        rate_source,
        rate_type,
        rate,
        hourly_rate,
        rate is null as has_no_rate,
        {{ round_to('paid_hours * hourly_rate', 2) }} as estimated_cost,
        provider_day_pay,
        case
            when provider_day_pay is not null then 'provider' else 'estimate'
        end as cost_source,
        case
            when provider_day_pay is null then {{ round_to('paid_hours * hourly_rate', 2) }}
            when day_paid_hours > 0
                then {{ round_to(
                    round_to('provider_day_pay * paid_hours_through / day_paid_hours', 2)
                    ~ ' - ' ~ round_to('provider_day_pay * paid_hours_before / day_paid_hours', 2),
                    2
                ) }}
            else {{ round_to(
                round_to('provider_day_pay * (rows_before + 1) / day_row_count', 2)
                ~ ' - ' ~ round_to('provider_day_pay * rows_before / day_row_count', 2),
                2
            ) }}
        end as labour_cost,
        -- the API states no currency for rates or pay: the account's, as var('currency') names it
        {{ currency_literal() }} as currency
    from shared

)

select * from final
