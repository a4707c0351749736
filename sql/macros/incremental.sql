{#- Incremental marts (the models materialized 'incremental': they grow with history).

    A run on an existing table re-derives every row of a local day on or after the
    incremental_from_date and keeps the older ones. That date is the newest day of the table's
    past rows (its rows up to the clock's day, as_of_time) minus
    var('incremental_lookback_days') and two days more (a punch crossing midnight, a break on its
    punch's day, a day's local date next to its UTC one). `wfm-sync` passes the look-back as the
    widest window the API sync re-pulls (time activities and timesheets, shifts), so every late
    edit and deletion the syncs since the last build could load falls on a re-derived day. A
    full build (`wfm-sync models build --full-refresh`, or a table not built yet) derives every
    day. -#}

{#- The first day (an ISO date string) an incremental run of the current model re-derives, or
    none when the model is built in full (not incremental, or a table with no past rows).
    `date_expression` is a date (or timestamp) column of the model; `past_rows` a condition
    naming the rows that lie in the past when built (punches, worked days), so a table holding
    future days (scheduled shifts) still dates its last build. Days before 1900 (provider
    values no calendar of ours places) never date it. -#}
{% macro incremental_from_date(date_expression, past_rows='true') -%}
    {%- if not execute or model.resource_type == 'unit_test' or not is_incremental() -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set newest_query -%}
        select max(cast({{ date_expression }} as date)) as newest
        from {{ this }}
        where
            ({{ past_rows }})
            and cast({{ date_expression }} as date)
            between cast('1900-01-01' as date) and cast({{ as_of_time() }} as date)
    {%- endset -%}
    {%- set newest = run_query(newest_query).columns[0].values()[0] -%}
    {%- if newest is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set day = modules.datetime.date.fromisoformat(newest | string | truncate(10, true, '')) -%}
    {%- set back = var('incremental_lookback_days') | int + 2 -%}
    {{ return((day - modules.datetime.timedelta(days=back)).isoformat()) }}
{%- endmacro %}

{#- A condition true for the rows an incremental run re-derives: `date_expression` on or after
    `from_date` (incremental_from_date), or null when `with_unknown` (the rows of an unknown
    day); `true` when the model is built in full. -#}
{% macro on_or_after(date_expression, from_date, with_unknown=false) -%}
    {%- if from_date is none -%}
        true
    {%- else -%}
        (cast({{ date_expression }} as date) >= cast('{{ from_date }}' as date)
        {%- if with_unknown %} or {{ date_expression }} is null{% endif -%})
    {%- endif -%}
{%- endmacro %}

{#- The pre-hook of an incremental model: remove the rows it re-derives (see on_or_after), so
    a row whose source is gone (deleted, moved off the day) goes too; nothing on a full build. -#}
{% macro delete_rederived(date_expression, past_rows='true', with_unknown=false) -%}
    {%- set from_date = incremental_from_date(date_expression, past_rows) -%}
    {%- if from_date is not none -%}
        delete from {{ this }}
        where {{ on_or_after(date_expression, from_date, with_unknown) }}
    {%- endif -%}
{%- endmacro %}

{#- `from_date` (an ISO date string) moved `days` days earlier; none stays none (a full build):
    the context an incremental run reads around the days it re-derives. -#}
{% macro days_before(from_date, days) -%}
    {%- if from_date is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set day = modules.datetime.date.fromisoformat(from_date) -%}
    {{ return((day - modules.datetime.timedelta(days=days)).isoformat()) }}
{%- endmacro %}
