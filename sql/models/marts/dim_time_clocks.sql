-- One row per time clock: every time clock the API lists (archived ones flagged), and every time
-- clock id a punch names that the listing does not hold (is_inferred). time_clock_label is the
-- name charts and filters show: "(archived)" after an archived clock, "time clock <id> (not
-- listed)" for an inferred one, the id appended where two clocks would show the same label.

with

listed as (

    select * from {{ ref('stg_connecteam__time_clocks') }}

),

seen as (

    select distinct time_clock_id from {{ ref('int_time_activities__paid_time') }}
    where time_clock_id is not null

),

members as (

    select
        time_clock_id,
        time_clock_name,
        is_archived,
        false as is_inferred
    from listed
    union all
    select
        seen.time_clock_id,
        null as time_clock_name,
        null as is_archived,
        true as is_inferred
    from seen
    where not exists (
        select 1 from listed
        where listed.time_clock_id = seen.time_clock_id
    )

),

named as (

    select
        *,
        case
            when is_inferred
                then 'time clock ' || cast(time_clock_id as varchar) || ' (not listed)'
            else time_clock_name || case when is_archived then ' (archived)' else '' end
        end as time_clock_display_name
    from members

)

select
    time_clock_id,
    time_clock_name,
    is_archived,
    is_inferred,
    {{ display_label('time_clock_display_name', 'time_clock_id', 'time clock') }}
        as time_clock_label
from named
