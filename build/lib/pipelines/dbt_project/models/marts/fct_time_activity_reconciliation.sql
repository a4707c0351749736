-- User x local day x data_source: time activities on which the API and the webhooks disagree.
--   data_source = 'api_only'      : in the API, no webhook event (a missed delivery)
--            'webhooks_only' : live in the webhooks, absent from (or deleted in) the API inside
--                              the window the last sync re-pulled (deleted later, or not in
--                              the API)
--            'differs'       : in both, with a different start or end, or deleted per the
--                              webhooks while live in the API
-- Only the period webhooks cover is compared: activities starting on or after the day of the
-- earliest activity any webhook reported. An activity whose webhook state is newer than the
-- last pull (pulled_at) is not compared: the API could not show it yet (fct_time_activities
-- takes the webhooks' version).

with

api as (

    select * from {{ ref('stg_connecteam__time_activities') }}
    where not is_deleted

),

coverage as (

    select * from {{ ref('stg_connecteam__time_activity_coverage') }}

),

webhooks as (

    select * from {{ ref('int_time_activities__webhooks') }}

),

webhooks_since as (

    -- midnight UTC of the day of the first webhook activity
    select date_trunc('day', min(started_at) at time zone 'UTC') at time zone 'UTC' as since
    from webhooks

),

compared as (

    select
        coalesce(api.time_activity_id, webhooks.time_activity_id) as time_activity_id,
        coalesce(api.user_id, webhooks.user_id) as user_id,
        coalesce(api.time_clock_id, webhooks.time_clock_id) as time_clock_id,
        coalesce(api.started_at, webhooks.started_at) as started_at,
        coalesce(api.start_timezone, api.end_timezone, webhooks.timezone) as timezone,
        webhooks.last_event_at as webhook_last_event_at,
        {{ activity_hours(
            'api.activity_type', 'api.started_at', 'api.ended_at',
            'api.duration_value', 'api.duration_units'
        ) }} as api_duration_hours,
        webhooks.duration_hours as webhook_duration_hours,
        case
            when webhooks.time_activity_id is null then 'api_only'
            when api.time_activity_id is null and webhooks.is_deleted then null  -- both: gone
            when api.time_activity_id is null then 'webhooks_only'
            when webhooks.is_deleted then 'differs'  -- deleted per the webhooks, live in the API
            when
                api.started_at <> webhooks.started_at
                or not (api.ended_at is not distinct from webhooks.ended_at)
                then 'differs'
        end as data_source
    from api
    full outer join webhooks on api.time_activity_id = webhooks.time_activity_id

),

in_scope as (

    select
        compared.*,
        {{ local_date('compared.started_at', 'compared.timezone') }} as local_date
    from compared
    cross join webhooks_since
    left join coverage on compared.time_clock_id = coverage.time_clock_id
    where
        compared.data_source is not null
        and compared.user_id is not null  -- a punch of no known user stays in staging
        and compared.started_at >= webhooks_since.since
        and not coalesce(compared.webhook_last_event_at > coverage.pulled_at, false)
        and (
            compared.data_source <> 'webhooks_only'
            or (
                compared.started_at >= coverage.window_from
                and compared.started_at < coverage.pulled_at
            )
        )

),

final as (

    select
        user_id,
        local_date,
        data_source,
        count(*) as activity_count,
        array_agg(time_activity_id order by time_activity_id) as time_activity_ids,
        {{ round_to('sum(coalesce(api_duration_hours, 0))', 4) }} as api_hours,
        {{ round_to('sum(coalesce(webhook_duration_hours, 0))', 4) }} as webhook_hours,
        {{ readable_key([
            'user_id', "coalesce(cast(local_date as varchar), 'unknown-day')", 'data_source'
        ]) }} as reconciliation_key
    from in_scope
    group by user_id, local_date, data_source

)

select * from final
