-- Task board x week (Monday, of the due date): published and completed tasks due that week,
-- and the share completed. Drafts, archived tasks and deleted ones (is_deleted) are left out.

with

tasks as (

    select * from {{ ref('stg_connecteam__tasks') }}
    where
        status <> 'draft'
        and not is_archived
        and is_deleted is not true
        and due_at is not null

),

boards as (

    select * from {{ ref('stg_connecteam__task_boards') }}

),

weekly as (

    select
        task_board_id,
        try_cast(date_trunc('week', due_at) as date) as week_start,
        count(*) as tasks_due,
        count(*) filter (where status = 'completed') as tasks_completed
    from tasks
    group by task_board_id, try_cast(date_trunc('week', due_at) as date)

),

final as (

    select
        weekly.task_board_id,
        boards.task_board_name,
        weekly.week_start,
        weekly.tasks_due,
        weekly.tasks_completed,
        round(weekly.tasks_completed / weekly.tasks_due, 4) as completion_rate,
        {{ readable_key(['weekly.task_board_id', 'weekly.week_start']) }} as board_week_key
    from weekly
    left join boards on weekly.task_board_id = boards.task_board_id

)

select * from final
