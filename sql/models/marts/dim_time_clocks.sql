-- One row per time clock: every time clock the API lists (archived ones flagged), and every time
-- clock id a punch names that the listing does not hold (is_inferred). time_clock_label is the
-- name charts and filters show: "(archived)" after an archived clock, "time clock <id> (not
-- listed)" for an inferred one, the id appended where two clocks would show the same label.
-- splits_at_midnight: the clock counts an overnight shift's hours past local midnight on the
-- next day, as its timesheet tells (int_time_clocks__overnight_split; the API has no setting).

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

splits as (

    select
        time_clock_id,
        splits_at_midnight
    from {{ ref('int_time_clocks__overnight_split') }}

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
    named.time_clock_id,
    named.time_clock_name,
    named.is_archived,
    named.is_inferred,
    {{ display_label('named.time_clock_display_name', 'named.time_clock_id', 'time clock') }}
        as time_clock_label,
    coalesce(splits.splits_at_midnight, false) as splits_at_midnight
from named
left join splits on named.time_clock_id = splits.time_clock_id
