-- One row per scheduler: every scheduler the API lists (archived and deleted ones flagged), and
-- every scheduler id a shift names that the listing does not hold (is_inferred). scheduler_label
-- is the name charts and filters show: "(archived)" or "(deleted)" after such a scheduler,
-- "scheduler <id> (not listed)" for an inferred one, the id appended where two schedulers would
-- show the same label.

with

listed as (

    select * from {{ ref('stg_connecteam__schedulers') }}

),

seen as (

    select distinct scheduler_id from {{ ref('int_shift_assignments__current') }}
    where scheduler_id is not null

),

members as (

    select
        scheduler_id,
        scheduler_name,
        timezone,
        is_archived,
        is_deleted,
        false as is_inferred
    from listed
    union all
    select
        seen.scheduler_id,
        null as scheduler_name,
        null as timezone,
        null as is_archived,
        false as is_deleted,
        true as is_inferred
    from seen
    where not exists (
        select 1 from listed
        where listed.scheduler_id = seen.scheduler_id
    )

),

named as (

    select
        *,
        case
            when is_inferred
                then 'scheduler ' || cast(scheduler_id as varchar) || ' (not listed)'
            else scheduler_name || case
                when is_deleted then ' (deleted)'
                when is_archived then ' (archived)'
                else ''
            end
        end as scheduler_display_name
    from members

)

select
    scheduler_id,
    scheduler_name,
    timezone,
    is_archived,
    is_deleted,
    is_inferred,
    {{ display_label('scheduler_display_name', 'scheduler_id', 'scheduler') }} as scheduler_label
from named
