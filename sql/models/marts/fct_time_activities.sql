-- One row per time activity, from the source that knows it best (data_source says which):
--   * the API's version, for activities it holds; except when the webhooks' last approved state
--     is newer than the API row: the API row is as of its pull, which for an activity inside
--     the window the last sync re-pulled (window_from) is that sync (pulled_at), and for an
--     older one its own modifiedAt;
--   * the webhooks' last approved state for activities the API does not hold, when they started
--     after the last pull (pulled_at, not yet pulled) or before the re-pulled window, or on a
--     time clock the API has not covered, or when their last event is newer than the last pull
--     (the pull could not show it: an admin add after the sync). An activity only the webhooks
--     know, inside the re-pulled window and with no event since the pull, was deleted since
--     (see the reconciliation mart).
-- Hours: end minus start; a time off counts its duration (activity_hours).
-- overlaps_other_punch: a live shift punch whose time overlaps another live shift punch of the
-- same user (on any clock); the day's worked hours count their union
-- (int_time_activities__paid_time).

with

api as (

    select * from {{ ref('stg_connecteam__time_activities') }}

),

coverage as (

    select * from {{ ref('stg_connecteam__time_activity_coverage') }}

),

webhooks as (

    select * from {{ ref('int_time_activities__webhooks') }}

),

stale_api as (

    select api.time_activity_id
    from api
    inner join webhooks on api.time_activity_id = webhooks.time_activity_id
    inner join coverage on api.time_clock_id = coverage.time_clock_id
    where
        webhooks.last_event_at > case
            when api.started_at < coverage.window_from
                then coalesce(api.modified_at, coverage.window_from)
            else coverage.pulled_at
        end

),

from_api as (

    select
        api.time_activity_id,
        api.user_id,
        api.time_clock_id,
        api.activity_type,
        api.job_id,
        api.sub_job_id,
        api.manual_break_id,
        api.scheduler_shift_id,
        api.started_at,
        api.ended_at,
        api.is_auto_clock_out,
        api.auto_clock_out_mode,
        webhooks.last_event_type,
        webhooks.last_event_at,
        coalesce(webhooks.event_count, 0) as event_count,
        coalesce(api.start_timezone, api.end_timezone) as timezone,
        api.is_deleted,
        api.ended_at is null
        and not api.is_deleted
        and coalesce(api.activity_type, '') <> 'time_off' as is_open_punch,
        {{ activity_hours(
            'api.activity_type', 'api.started_at', 'api.ended_at',
            'api.duration_value', 'api.duration_units'
        ) }} as duration_hours,
        'api' as data_source
    from api
    left join webhooks on api.time_activity_id = webhooks.time_activity_id
    where api.time_activity_id not in (select stale_api.time_activity_id from stale_api)

),

from_webhooks as (

    select
        webhooks.time_activity_id,
        webhooks.user_id,
        webhooks.time_clock_id,
        webhooks.activity_type,
        webhooks.job_id,
        webhooks.sub_job_id,
        webhooks.manual_break_id,
        webhooks.scheduler_shift_id,
        webhooks.started_at,
        webhooks.ended_at,
        webhooks.is_auto_clock_out,
        webhooks.auto_clock_out_mode,
        webhooks.last_event_type,
        webhooks.last_event_at,
        webhooks.event_count,
        webhooks.timezone,
        webhooks.is_deleted,
        webhooks.is_open_punch,
        webhooks.duration_hours,
        'webhooks' as data_source
    from webhooks
    left join coverage on webhooks.time_clock_id = coverage.time_clock_id
    where
        webhooks.time_activity_id in (select stale_api.time_activity_id from stale_api)
        or (
            webhooks.time_activity_id not in (select api.time_activity_id from api)
            and (
                coverage.time_clock_id is null
                or webhooks.started_at >= coverage.pulled_at
                or webhooks.started_at < coverage.window_from
                or webhooks.last_event_at > coverage.pulled_at
            )
        )

),

unioned as (

    select * from from_api
    union all
    select * from from_webhooks

),

punches as (

    select
        time_activity_id,
        max(ended_at) over (
            partition by user_id order by started_at, time_activity_id
            rows between unbounded preceding and 1 preceding
        ) as earlier_ended_at,
        lead(started_at) over (
            partition by user_id order by started_at, time_activity_id
        ) as next_started_at
    from unioned
    where
        activity_type = 'shift'
        and not is_deleted
        and user_id is not null
        and started_at is not null

),

final as (

    select
        unioned.*,
        coalesce(
            punches.earlier_ended_at > unioned.started_at
            or punches.next_started_at < unioned.ended_at,
            false
        ) as overlaps_other_punch
    from unioned
    left join punches on unioned.time_activity_id = punches.time_activity_id

)

select * from final
