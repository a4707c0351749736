-- Scheduler x ISO week (Monday, UTC) of the change: the schedule changes of fct_schedule_changes
-- counted by type, and how many fell inside the notice window and inside 24 hours (changes made
-- after their shift started, after_start, in neither: they gave no notice).

with

changes as (

    select
        *,
        cast(date_trunc('week', changed_at at time zone 'UTC') as date) as week_start
    from {{ ref('fct_schedule_changes') }}

),

final as (

    select
        {{ readable_key(['scheduler_id', 'week_start']) }} as scheduler_week_key,
        scheduler_id,
        week_start,
        count(*) as change_count,
        count(*) filter (where change_type = 'added') as added_count,
        count(*) filter (where change_type = 'cancelled') as cancelled_count,
        count(*) filter (where change_type = 'reassigned') as reassigned_count,
        count(*) filter (where change_type = 'time_moved') as time_moved_count,
        count(*) filter (where change_type = 'shortened') as shortened_count,
        count(*) filter (where change_type = 'extended') as extended_count,
        count(*) filter (where change_type = 'after_start') as after_start_count,
        count(*) filter (where is_inside_notice_window) as inside_notice_window_count,
        count(*) filter (where is_inside_24h) as inside_24h_count,
        count(*) filter (where is_dated_at_sync) as dated_at_sync_count
    from changes
    group by scheduler_id, week_start

)

select * from final
