-- The change log of the day-grain incremental marts (fct_daily_hours, fct_labour_cost_daily;
-- macros/incremental.sql), kept in the warehouse from build to build. Each build of this model
-- (one change_seq, counting up from 1) compares int_user_days__inputs with the inputs it kept
-- at the previous build and logs what differs, whatever brought it (an API sync, a webhook
-- folded, a deletion, an edit of any age, a changed model upstream):
--   row_kind input: the inputs of this build, the next build's baseline;
--   row_kind change: user-days to re-derive, from change_seq on: a point input (a punch, break,
--     assignment, time off or timesheet day) added, gone or changed names its user-day before and
--     after (from_date = to_date; an input of no day names all of its user's rows); a pay rate
--     names its user from its effective date on (to_date null); a timesheet pull's first or last
--     day moving names every user's days between its old and new value (user_id null); the
--     settings changing name everything (all null);
--   row_kind build: one row per build still logged (change_seq), so a mart can tell whether the
--     log reaches back to its own last build.
-- Logged changes stay for var('incremental_change_builds_kept') builds; a mart built less
-- often than that rebuilds in full. Without a previous table (first build, or dropped), the
-- build logs one change naming everything.

{{ config(materialized='table', post_hook="{{ create_incremental_builds() }}") }}

{%- set previous = previous_version() %}
{%- set kept = var('incremental_change_builds_kept') | int %}

with

current_inputs as (

    select
        input_source,
        input_key,
        user_id,
        local_date,
        input_digest
    from {{ ref('int_user_days__inputs') }}

),

previous_rows as (

    select
        previous_log.row_kind,
        previous_log.change_seq,
        previous_log.input_source,
        previous_log.input_key,
        previous_log.user_id,
        previous_log.local_date,
        previous_log.input_digest,
        previous_log.from_date,
        previous_log.to_date
    from {{ previous if previous is not none else empty_change_log() }} as previous_log

),

build as (

    select coalesce(max(change_seq), 0) + 1 as change_seq
    from previous_rows

),

previous_inputs as (

    select
        input_source,
        input_key,
        user_id,
        local_date,
        input_digest
    from previous_rows
    where row_kind = 'input'

),

differing as (

    (
        select * from current_inputs
        where {{ 'false' if previous is none else 'true' }}  -- a first build logs everything
        except
        select * from previous_inputs
    )
    union all
    (
        select * from previous_inputs
        except
        select * from current_inputs
    )

),

new_changes as (

    select distinct
        user_id,
        local_date as from_date,
        local_date as to_date
    from differing
    where input_source in ('paid_time', 'shift', 'time_off', 'timesheet')

    union all

    select distinct
        user_id,
        local_date as from_date,
        cast(null as date) as to_date
    from differing
    where input_source = 'pay_rate'

    union all

    select
        cast(null as bigint) as user_id,
        min(local_date) as from_date,
        max(local_date) as to_date
    from differing
    where input_source in ('timesheet_pull_from', 'timesheet_pull_to')
    group by input_source

    union all

    -- the settings changed, or a first build (nothing to compare with): everything
    select
        cast(null as bigint) as user_id,
        cast(null as date) as from_date,
        cast(null as date) as to_date
    from build
    where
        {{ 'true' if previous is none else 'false' }}
        or exists (
            select 1 from differing as settings_changed
            where settings_changed.input_source = 'settings'
        )

),

final as (

    select
        'input' as row_kind,
        build.change_seq,
        current_inputs.input_source,
        current_inputs.input_key,
        current_inputs.user_id,
        current_inputs.local_date,
        current_inputs.input_digest,
        cast(null as date) as from_date,
        cast(null as date) as to_date
    from current_inputs
    cross join build

    union all

    select distinct
        'change' as row_kind,
        build.change_seq,
        cast(null as varchar) as input_source,
        cast(null as varchar) as input_key,
        new_changes.user_id,
        cast(null as date) as local_date,
        cast(null as varchar) as input_digest,
        new_changes.from_date,
        new_changes.to_date
    from new_changes
    cross join build

    union all

    select
        'build' as row_kind,
        build.change_seq,
        cast(null as varchar) as input_source,
        cast(null as varchar) as input_key,
        cast(null as bigint) as user_id,
        cast(null as date) as local_date,
        cast(null as varchar) as input_digest,
        cast(null as date) as from_date,
        cast(null as date) as to_date
    from build

    union all

    select previous_rows.*
    from previous_rows
    cross join build
    where
        previous_rows.row_kind in ('change', 'build')
        and previous_rows.change_seq > build.change_seq - {{ kept }}

)

select * from final
