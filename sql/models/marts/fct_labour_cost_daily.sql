-- User x local day x job: hours worked (shift punches, on the local day of their start) and what
-- they cost at the rate in effect that day. The rate record in effect is the user's latest
-- effective date on or before the day (live rates only); of it, the sub-job's or job's rate when
-- job rates are enabled and the job has one of its own, else the default rate. Monthly and
-- yearly rates are reported as they are; labour_cost is hours x rate for hourly rates, and for
-- monthly or yearly ones only when var('labour_cost_hours_per_month') /
-- var('labour_cost_hours_per_year') says how many hours such a rate pays.
{%- set per_month = var('labour_cost_hours_per_month') %}
{%- set per_year = var('labour_cost_hours_per_year') %}

with

punches as (

    select
        user_id,
        job_id,
        duration_hours,
        {{ local_date('started_at', 'timezone') }} as local_date
    from {{ ref('fct_time_activities') }}
    where not is_deleted and activity_type = 'shift' and user_id is not null

),

worked as (

    select
        user_id,
        local_date,
        job_id,
        count(*) as punch_count,
        {{ round_to('sum(coalesce(duration_hours, 0))', 4) }} as worked_hours
    from punches
    group by user_id, local_date, job_id

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
        worked.punch_count,
        worked.worked_hours,
        max(effective_dates.effective_date) as effective_date
    from worked
    left join effective_dates
        on
            worked.user_id = effective_dates.user_id
            and worked.local_date >= effective_dates.effective_date
    group by
        worked.user_id, worked.local_date, worked.job_id, worked.punch_count, worked.worked_hours

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
            and in_effect.job_id = sub_job_rates.sub_resource_id
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

final as (

    select
        {{ readable_key(['user_id', 'local_date', 'job_id']) }} as labour_cost_key,
        user_id,
        local_date,
        job_id,
        punch_count,
        worked_hours,
        effective_date as rate_effective_date,
        rate_source,
        rate_type,
        rate,
        case
            when rate_type = 'hourly' then rate
            {%- if per_month is not none %}
                when rate_type = 'monthly' then rate / {{ per_month }}
            {%- endif %}
            {%- if per_year is not none %}
                when rate_type = 'yearly' then rate / {{ per_year }}
            {%- endif %}
        end as hourly_rate,
        rate is null as has_no_rate
    from rated

)

select
    *,
    {{ round_to('worked_hours * hourly_rate', 2) }} as labour_cost
from final
