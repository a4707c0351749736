{#- The day-grain incremental marts (fct_daily_hours, fct_labour_cost_daily: materialized
    'incremental', delete+insert) re-derive exactly the user-days whose inputs changed since
    their own last build, at any age, and keep every other row.

    int_user_days__changes logs, build after build, the user-days whose inputs
    (int_user_days__inputs) differ from the previous build's (change_seq counts builds); each
    mart records, in the table `incremental_builds` beside that log, the change_seq and the code
    checksum it was last built at (post-hook record_incremental_build). A build of the mart then
    deletes and re-derives the rows the changes logged since then name (changed_user_day); it
    derives every row instead (and says so in dbt's log) on its first build, with
    --full-refresh, when its SQL changed, when the log no longer reaches back to its last build,
    or when a logged change names everything (the settings changed, the log was rebuilt).
    Each says which in dbt's log ("incremental: <mart>: ...", ModelsSummary.incremental). -#}

{#- The change_seq of the current model's last build, whose later logged changes this build
    re-derives; none when it derives every row (see above). -#}
{% macro user_day_changes_since() -%}
    {%- if not execute or model.resource_type == 'unit_test' or not is_incremental() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set changes = ref('int_user_days__changes') -%}
    {%- set builds = adapter.get_relation(
        database=changes.database, schema=changes.schema, identifier='incremental_builds'
    ) -%}
    {%- if builds is none -%}
        {{ log(
            'incremental: ' ~ this.identifier ~ ': every row (no record of its last build)',
            info=true
        ) }}
        {{ return(none) }}
    {%- endif -%}
    {%- set query -%}
        select
            builds.change_seq,
            builds.code_checksum,
            (
                select min(change_seq) from {{ changes }}
                where row_kind = 'build'
            ) as oldest_logged,
            (
                select count(*) from {{ changes }}
                where
                    row_kind = 'change'
                    and change_seq > builds.change_seq
                    and user_id is null and from_date is null and to_date is null
            ) as everything
        from {{ builds }} as builds
        where builds.model_name = '{{ this.identifier }}'
    {%- endset -%}
    {%- set found = run_query(query) -%}
    {%- if found.rows | length == 0 or found.rows[0][0] is none -%}
        {{ log(
            'incremental: ' ~ this.identifier ~ ': every row (no record of its last build)',
            info=true
        ) }}
        {{ return(none) }}
    {%- endif -%}
    {%- set since, checksum, oldest, everything = found.rows[0] -%}
    {%- set reason = (
        'its SQL changed' if checksum != model.checksum.checksum
        else 'the change log no longer reaches its last build' if oldest is none
            or oldest > since + 1
        else 'a change names every day (settings, or the log rebuilt)' if everything > 0
        else none
    ) -%}
    {%- if reason is not none -%}
        {{ log('incremental: ' ~ this.identifier ~ ': every row (' ~ reason ~ ')', info=true) }}
        {{ return(none) }}
    {%- endif -%}
    {%- set logged = run_query(
        'select count(*) from ' ~ changes ~ " where row_kind = 'change' and change_seq > "
        ~ since
    ).columns[0].values()[0] -%}
    {{ log(
        'incremental: ' ~ this.identifier ~ ': the user-days of ' ~ logged
        ~ ' changes logged since its last build', info=true
    ) }}
    {{ return(since | int) }}
{%- endmacro %}

{#- A condition true for the rows of a user-day a change logged after build `since` names
    (`user_expression`, `date_expression`: the row's user and local day; a row of no day only
    when a change names all of its user's rows); `true` when `since` is none (every row). The
    log is read under other column names, so unqualified names stay the row's. -#}
{% macro changed_user_day(user_expression, date_expression, since) -%}
    {%- if since is none -%}
        true
    {%- else -%}
        {%- set changes -%}
            (
                select
                    user_id as changed_user_id,
                    from_date as changed_from_date,
                    to_date as changed_to_date
                from {{ ref('int_user_days__changes') }}
                where row_kind = 'change' and change_seq > {{ since }}
            )
        {%- endset -%}
        (
            exists (
                select 1 from {{ changes }} as points
                where
                    points.changed_user_id = {{ user_expression }}
                    and points.changed_from_date = {{ date_expression }}
                    and points.changed_to_date = {{ date_expression }}
            )
            or exists (
                select 1 from {{ changes }} as spans
                where
                    (
                        spans.changed_user_id is null or spans.changed_from_date is null
                        or spans.changed_to_date is null
                        or spans.changed_from_date <> spans.changed_to_date
                    )
                    and (spans.changed_user_id is null
                        or spans.changed_user_id = {{ user_expression }})
                    and (spans.changed_from_date is null
                        or {{ date_expression }} >= spans.changed_from_date)
                    and (spans.changed_to_date is null
                        or {{ date_expression }} <= spans.changed_to_date)
            )
        )
    {%- endif -%}
{%- endmacro %}

{#- The pre-hook of a day-grain incremental mart (columns user_id, local_date): remove the rows
    it re-derives (every row when it derives every row), so a row whose inputs are gone
    (deleted, moved to another day) goes too; nothing when the table is built anew. -#}
{% macro delete_changed_user_days() -%}
    {%- if execute and is_incremental() -%}
        delete from {{ this }}
        where {{ changed_user_day('user_id', 'local_date', user_day_changes_since()) }}
    {%- endif -%}
{%- endmacro %}

{#- The post-hook of int_user_days__changes: the table `incremental_builds` beside it, where
    each day-grain incremental mart records the build it consumed. Created here, upstream of
    both marts, because the marts build side by side (two creates at once collide on
    PostgreSQL). -#}
{% macro create_incremental_builds() -%}
    create table if not exists {{ this.schema }}.incremental_builds (
        model_name varchar, change_seq bigint, code_checksum varchar
    )
{%- endmacro %}

{#- The post-hooks of a day-grain incremental mart, `step` 1 or 2 (one statement each): record
    the change_seq and code checksum it was built at, in the table incremental_builds. -#}
{% macro record_incremental_build(step) -%}
    {%- set changes = ref('int_user_days__changes') -%}
    {%- set builds = changes.schema ~ '.incremental_builds' -%}
    {%- if step == 1 -%}
        delete from {{ builds }} where model_name = '{{ this.identifier }}'
    {%- else -%}
        insert into {{ builds }}
        select '{{ this.identifier }}', max(change_seq), '{{ model.checksum.checksum }}'
        from {{ changes }}
        where row_kind = 'build'
    {%- endif -%}
{%- endmacro %}

{#- The dbt variables the day-grain marts read, as one string (int_user_days__inputs' settings
    digest): a change to any rebuilds them in full. -#}
{% macro user_day_settings() -%}
    {%- set names = [
        'time_off_hours_per_day', 'time_off_max_request_days', 'timesheet_match_tolerance_hours',
        'labour_cost_hours_per_month', 'labour_cost_hours_per_year', 'currency',
    ] -%}
    {%- for name in names -%}
        {{ name }}={{ var(name) | string | replace("'", "") }}{{ ';' if not loop.last }}
    {%- endfor -%}
{%- endmacro %}

{#- The current model's table as the previous build left it, or none (not built yet). -#}
{% macro previous_version() -%}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(adapter.get_relation(
        database=this.database, schema=this.schema, identifier=this.identifier
    )) }}
{%- endmacro %}

{#- An empty relation of int_user_days__changes' columns: the previous build's log when there is
    none. -#}
{% macro empty_change_log() -%}
    (
        select
            cast(null as varchar) as row_kind,
            cast(null as bigint) as change_seq,
            cast(null as varchar) as input_source,
            cast(null as varchar) as input_key,
            cast(null as bigint) as user_id,
            cast(null as date) as local_date,
            cast(null as varchar) as input_digest,
            cast(null as date) as from_date,
            cast(null as date) as to_date
        where false
    )
{%- endmacro %}

{#- A digest (text) of the values of `columns` (SQL expressions), nulls told apart from empty
    text: dbt_utils' surrogate key. -#}
{% macro row_digest(columns) -%}
    {{ return(dbt_utils.generate_surrogate_key(columns)) }}
{%- endmacro %}
