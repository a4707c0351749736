-- One row per shift assignment (open shifts: one row with no user), from the API, with
-- scheduled hours and the local day in the shift's own timezone. Deleted assignments stay,
-- flagged: by the sync's deletion marks or by a newer shift_deleted webhook.

with

shifts as (

    select * from {{ ref('stg_connecteam__shifts') }}

),

schedulers as (

    select * from {{ ref('stg_connecteam__schedulers') }}

),

webhook_deletions as (

    select
        scheduler_id,
        slot_id,
        max(event_at) as deleted_at
    from {{ ref('stg_webhooks__shift_events') }}
    where is_deletion
    group by scheduler_id, slot_id

),

flagged as (

    select
        shifts.shift_assignment_key,
        max(webhook_deletions.deleted_at) as webhook_deleted_at
    from shifts
    inner join webhook_deletions
        on
            shifts.scheduler_id = webhook_deletions.scheduler_id
            and webhook_deletions.slot_id in (shifts.slot_id, shifts.shift_id)
            and webhook_deletions.deleted_at >= coalesce(shifts.updated_at, shifts.created_at)
    group by shifts.shift_assignment_key

),

final as (

    select
        shifts.shift_assignment_key,
        shifts.scheduler_id,
        schedulers.scheduler_name,
        shifts.shift_id,
        shifts.slot_id,
        shifts.user_id,
        shifts.is_open_shift,
        shifts.title,
        shifts.job_id,
        shifts.starts_at,
        shifts.ends_at,
        shifts.timezone,
        shifts.scheduled_hours,
        shifts.unpaid_break_minutes,
        shifts.is_published,
        try_cast(shifts.starts_at at time zone shifts.timezone as date) as local_date,
        shifts.is_deleted or flagged.webhook_deleted_at is not null as is_deleted,
        coalesce(shifts.deleted_at, flagged.webhook_deleted_at) as deleted_at

    from shifts
    left join schedulers on shifts.scheduler_id = schedulers.scheduler_id
    left join flagged on shifts.shift_assignment_key = flagged.shift_assignment_key

)

select * from final
