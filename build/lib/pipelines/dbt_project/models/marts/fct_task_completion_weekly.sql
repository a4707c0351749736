-- Task board x week (Monday, of the due date): published and completed tasks due that week,
-- and the share completed. Drafts, archived tasks and deleted ones (is_deleted) are left out.
--
-- Task webhook events count between syncs (stg_webhooks__task_events; per task the latest
-- event by event time wins, whatever order the events arrived in, one of several deliveries
-- of an event):
--   * a task the API holds is counted as the API lists it, and completed when the API says so
--     or its latest task event, newer than the last complete listing of its board
--     (stg_connecteam__task_coverage.pulled_at; any event when the board has none), reports it
--     completed (task_completed): the API row is as of that listing, and a completion after it
--     reaches us only by webhook, while an older event is what the API already answered (a
--     task completed at 10:00 and listed as published at 11:00 was reopened). A later task
--     event that does not report it completed (published again) undoes an earlier one. Other
--     changes (a draft published, a due date moved) wait for the next sync;
--   * a task the API does not hold yet (not even deleted) is counted from its latest event
--     (its status, archived flag and completion) when an event carries its due date (the
--     latest such event gives the due date and, where sent, the board).

with

api_tasks as (

    select * from {{ ref('stg_connecteam__tasks') }}

),

events as (

    select * from {{ ref('stg_webhooks__task_events') }}
    where task_id is not null

),

coverage as (

    select * from {{ ref('stg_connecteam__task_coverage') }}

),

boards as (

    select * from {{ ref('stg_connecteam__task_boards') }}

),

latest_events as (

    {{ latest_event('events', 'task_id') }}

),

latest_dated_events as (

    {{ latest_event('events', 'task_id', where='due_at is not null') }}

),

-- the latest event of a task the API holds, when newer than the API's read of its board
newer_events as (

    select
        latest_events.task_id,
        latest_events.is_completed
    from latest_events
    inner join api_tasks on latest_events.task_id = api_tasks.task_id
    left join coverage on api_tasks.task_board_id = coverage.task_board_id
    where coverage.pulled_at is null or latest_events.event_at > coverage.pulled_at

),

from_api as (

    select
        api_tasks.task_board_id,
        api_tasks.due_at,
        api_tasks.status = 'completed' or coalesce(newer_events.is_completed, false)
            as is_completed,
        coalesce(api_tasks.status <> 'completed' and newer_events.is_completed, false)
            as is_webhook_completion,
        false as is_webhook_only
    from api_tasks
    left join newer_events on api_tasks.task_id = newer_events.task_id
    where
        api_tasks.status <> 'draft'
        and not api_tasks.is_archived
        and api_tasks.is_deleted is not true
        and api_tasks.due_at is not null

),

from_webhooks as (

    select
        coalesce(latest_dated_events.task_board_id, latest_events.task_board_id)
            as task_board_id,
        latest_dated_events.due_at,
        latest_events.is_completed,
        latest_events.is_completed as is_webhook_completion,
        true as is_webhook_only
    from latest_events
    inner join latest_dated_events on latest_events.task_id = latest_dated_events.task_id
    left join api_tasks on latest_events.task_id = api_tasks.task_id
    where
        api_tasks.task_id is null
        and coalesce(latest_events.status, '') <> 'draft'
        and not coalesce(latest_events.is_archived, false)

),

tasks as (

    select * from from_api
    union all
    select * from from_webhooks

),

weekly as (

    select
        task_board_id,
        cast(date_trunc('week', due_at at time zone 'UTC') as date) as week_start,
        count(*) as tasks_due,
        count(*) filter (where is_completed) as tasks_completed,
        count(*) filter (where is_webhook_only) as webhook_only_tasks,
        count(*) filter (where is_webhook_completion) as webhook_completions
    from tasks
    group by task_board_id, cast(date_trunc('week', due_at at time zone 'UTC') as date)

),

final as (

    select
        weekly.task_board_id,
        boards.task_board_name,
        weekly.week_start,
        weekly.tasks_due,
        weekly.tasks_completed,
        {{ round_to('cast(weekly.tasks_completed as float8) / weekly.tasks_due', 4) }}
            as completion_rate,
        weekly.webhook_only_tasks,
        weekly.webhook_completions,
        {{ readable_key([
            "coalesce(cast(weekly.task_board_id as varchar), 'unknown-board')", 'weekly.week_start'
        ]) }} as board_week_key
    from weekly
    left join boards on weekly.task_board_id = boards.task_board_id

)

select * from final
