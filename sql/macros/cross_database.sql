{#- The SQL that differs between the warehouses the models build on: DuckDB (dbt-duckdb, the
    default) and PostgreSQL (dbt-postgres, WFM_SYNC_DESTINATION=postgres). Each macro here is
    dispatched (adapter.dispatch) to one duckdb__ and one postgres__ implementation; models and the
    other macros call only these, so no model carries a dialect of its own.

    PostgreSQL has no try_cast: `create_try_cast_functions` (on-run-start, dbt_project.yml) creates,
    in the schema `wfm_sync_functions`, one function per type that returns null where a cast would
    raise (parallel restricted: the exception block needs a subtransaction, which a parallel worker
    cannot start). PostgreSQL's JSON macros take json or jsonb (dlt loads jsonb; a unit test's given
    rows may be json). -#}

{#- `cast(expression as data_type)`, null instead of an error when the value does not convert.
    Types: bigint, float8, boolean, date, json, timestamp with time zone, varchar. -#}
{% macro try_cast(expression, data_type) -%}
    {{ return(adapter.dispatch('try_cast', 'wfm_sync')(expression, data_type)) }}
{%- endmacro %}

{% macro duckdb__try_cast(expression, data_type) -%}
    try_cast({{ expression }} as {{ data_type }})
{%- endmacro %}

{% macro postgres__try_cast(expression, data_type) -%}
    {%- set name = try_cast_function_name(data_type) -%}
    {%- if name == 'varchar' -%}
        cast({{ expression }} as varchar)
    {%- else -%}
        wfm_sync_functions.try_cast_{{ name }}(cast({{ expression }} as text))
    {%- endif -%}
{%- endmacro %}

{#- The suffix of the PostgreSQL function casting to `data_type` (see try_cast). -#}
{% macro try_cast_function_name(data_type) -%}
    {%- set names = {
        'bigint': 'bigint', 'float8': 'float8', 'double': 'float8', 'boolean': 'boolean',
        'date': 'date', 'json': 'jsonb', 'jsonb': 'jsonb', 'varchar': 'varchar',
        'timestamptz': 'timestamptz', 'timestamp with time zone': 'timestamptz',
    } -%}
    {%- set key = data_type | trim | lower -%}
    {%- if key not in names -%}
        {{ exceptions.raise_compiler_error('try_cast: no PostgreSQL cast to ' ~ data_type) }}
    {%- endif -%}
    {{- return(names[key]) -}}
{%- endmacro %}

{#- on-run-start: PostgreSQL's try_cast functions (nothing on DuckDB, which has try_cast). -#}
{% macro create_try_cast_functions() -%}
    {{ return(adapter.dispatch('create_try_cast_functions', 'wfm_sync')()) }}
{%- endmacro %}

{% macro duckdb__create_try_cast_functions() -%}
    select 1 as nothing_to_create
{%- endmacro %}

{% macro postgres__create_try_cast_functions() -%}
    create schema if not exists wfm_sync_functions;
    {%- for name, sql_type in [
        ('bigint', 'bigint'), ('float8', 'float8'), ('boolean', 'boolean'), ('date', 'date'),
        ('jsonb', 'jsonb'), ('timestamptz', 'timestamptz'),
    ] %}
    create or replace function wfm_sync_functions.try_cast_{{ name }}(value text)
    returns {{ sql_type }} language plpgsql immutable parallel restricted as $body$
    begin
        return value::{{ sql_type }};
    exception when others then
        return null;
    end
    $body$;
    {%- endfor %}
{%- endmacro %}

{#- The SQL type of a JSON value: DuckDB's json, PostgreSQL's jsonb (what dlt loads). -#}
{% macro type_json() -%}
    {{ return(adapter.dispatch('type_json', 'wfm_sync')()) }}
{%- endmacro %}

{% macro duckdb__type_json() -%}json{%- endmacro %}

{% macro postgres__type_json() -%}jsonb{%- endmacro %}

{#- Text at `path` (dotted keys, e.g. 'start.timezone') inside a JSON value; a JSON object or
    array comes back as its JSON text; null when the path is absent, goes through a value of
    another shape, or holds JSON null. -#}
{% macro json_text(json_expression, path) -%}
    {{ return(adapter.dispatch('json_text', 'wfm_sync')(json_expression, path)) }}
{%- endmacro %}

{% macro duckdb__json_text(json_expression, path) -%}
    json_extract_string({{ json_expression }}, '{{ duckdb_json_path(path) }}')
{%- endmacro %}

{% macro postgres__json_text(json_expression, path) -%}
    (cast({{ json_expression }} as jsonb) #>> '{{ postgres_json_path(path) }}')
{%- endmacro %}

{#- The JSON value at `path` (dotted keys; '' for the value itself) inside a JSON value, as
    JSON; null when absent. -#}
{% macro json_get(json_expression, path) -%}
    {{ return(adapter.dispatch('json_get', 'wfm_sync')(json_expression, path)) }}
{%- endmacro %}

{% macro duckdb__json_get(json_expression, path) -%}
    json_extract({{ json_expression }}, '{{ duckdb_json_path(path) }}')
{%- endmacro %}

{% macro postgres__json_get(json_expression, path) -%}
    (cast({{ json_expression }} as jsonb) #> '{{ postgres_json_path(path) }}')
{%- endmacro %}

{#- A dotted path as a DuckDB JSON path, every key quoted: 'a.b' -> $."a"."b". -#}
{% macro duckdb_json_path(path) -%}
    ${% for part in path.split('.') if part %}."{{ part }}"{% endfor %}
{%- endmacro %}

{#- A dotted path as a PostgreSQL text[] path, every key quoted: 'a.b' -> {"a","b"}. -#}
{% macro postgres_json_path(path) -%}
    { {%- for part in path.split('.') if part -%}
        "{{ part }}"{{ ',' if not loop.last }}
    {%- endfor -%} }
{%- endmacro %}

{#- Whether a JSON value is an array / an object (null for SQL null). -#}
{% macro is_json_array(json_expression) -%}
    {{ return(adapter.dispatch('is_json_array', 'wfm_sync')(json_expression)) }}
{%- endmacro %}

{% macro duckdb__is_json_array(json_expression) -%}
    (json_type({{ json_expression }}) = 'ARRAY')
{%- endmacro %}

{% macro postgres__is_json_array(json_expression) -%}
    (jsonb_typeof(cast({{ json_expression }} as jsonb)) = 'array')
{%- endmacro %}

{% macro is_json_object(json_expression) -%}
    {{ return(adapter.dispatch('is_json_object', 'wfm_sync')(json_expression)) }}
{%- endmacro %}

{% macro duckdb__is_json_object(json_expression) -%}
    (json_type({{ json_expression }}) = 'OBJECT')
{%- endmacro %}

{% macro postgres__is_json_object(json_expression) -%}
    (jsonb_typeof(cast({{ json_expression }} as jsonb)) = 'object')
{%- endmacro %}

{#- A set-returning call for a FROM clause: the items of a JSON array, none for anything else.
    Use as `cross join lateral {{ json_items('t.col') }} with ordinality as i (item, item_number)`
    (item_number counts from 1). -#}
{% macro json_items(json_expression) -%}
    {{ return(adapter.dispatch('json_items', 'wfm_sync')(json_expression)) }}
{%- endmacro %}

{% macro duckdb__json_items(json_expression) -%}
    unnest(cast(case
        when json_type({{ json_expression }}) = 'ARRAY' then {{ json_expression }}
    end as json[]))
{%- endmacro %}

{% macro postgres__json_items(json_expression) -%}
    jsonb_array_elements(case
        when jsonb_typeof(cast({{ json_expression }} as jsonb)) = 'array'
            then cast({{ json_expression }} as jsonb)
        else '[]'::jsonb
    end)
{%- endmacro %}

{#- Seconds in an interval, or since the epoch for a timestamp, as a float8. -#}
{% macro epoch_seconds(expression) -%}
    {{ return(adapter.dispatch('epoch_seconds', 'wfm_sync')(expression)) }}
{%- endmacro %}

{% macro duckdb__epoch_seconds(expression) -%}
    epoch({{ expression }})
{%- endmacro %}

{% macro postgres__epoch_seconds(expression) -%}
    cast(extract(epoch from {{ expression }}) as float8)
{%- endmacro %}

{#- `number` rounded to `digits` decimals (half away from zero) as DuckDB rounds a double:
    round(number x 10^digits) / 10^digits in float8 arithmetic. PostgreSQL rounds only numerics,
    and a float8's cast to numeric keeps 15 digits, which would round 148.95499999999998 up. -#}
{% macro round_to(number, digits) -%}
    {{ return(adapter.dispatch('round_to', 'wfm_sync')(number, digits)) }}
{%- endmacro %}

{% macro duckdb__round_to(number, digits) -%}
    round({{ number }}, {{ digits }})
{%- endmacro %}

{% macro postgres__round_to(number, digits) -%}
    {%- set scale = 'cast(1e' ~ digits ~ ' as float8)' -%}
    {%- set scaled = '(cast(' ~ number ~ ' as float8) * ' ~ scale ~ ')' -%}
    ((trunc({{ scaled }}) + sign({{ scaled }})
        * cast(abs({{ scaled }} - trunc({{ scaled }})) >= 0.5 as integer)) / {{ scale }})
{%- endmacro %}

{#- Whether text matches a regular expression in full. -#}
{% macro matches_fully(text_expression, pattern) -%}
    {{ return(adapter.dispatch('matches_fully', 'wfm_sync')(text_expression, pattern)) }}
{%- endmacro %}

{% macro duckdb__matches_fully(text_expression, pattern) -%}
    regexp_full_match({{ text_expression }}, '{{ pattern }}')
{%- endmacro %}

{% macro postgres__matches_fully(text_expression, pattern) -%}
    ({{ text_expression }} ~ '^(?:{{ pattern }})$')
{%- endmacro %}

{#- Whether a float8 is a finite number (not infinity, not NaN). -#}
{% macro is_finite_number(number) -%}
    {{ return(adapter.dispatch('is_finite_number', 'wfm_sync')(number)) }}
{%- endmacro %}

{% macro duckdb__is_finite_number(number) -%}
    isfinite({{ number }})
{%- endmacro %}

{% macro postgres__is_finite_number(number) -%}
    ({{ number }} not in ('Infinity'::float8, '-Infinity'::float8, 'NaN'::float8))
{%- endmacro %}

{#- The timezone names the database knows, as a subquery of one column `name`. -#}
{% macro timezone_names() -%}
    {{ return(adapter.dispatch('timezone_names', 'wfm_sync')()) }}
{%- endmacro %}

{% macro duckdb__timezone_names() -%}
    (select tz.name from pg_timezone_names() as tz)
{%- endmacro %}

{% macro postgres__timezone_names() -%}
    (select tz.name from pg_timezone_names as tz)
{%- endmacro %}

{#- The time the models take as now (timestamp with time zone): the dbt variable `now` (epoch
    seconds; `wfm-sync` passes it when WFM_SYNC_NOW pins its clock), else the start of the dbt
    invocation (run_started_at, UTC), the same instant for every model of one build. -#}
{% macro as_of_time() -%}
    {%- if var('now', none) is not none -%}
        to_timestamp({{ var('now') | float }})
    {%- else -%}
        to_timestamp({{ run_started_at.timestamp() }})
    {%- endif -%}
{%- endmacro %}

{#- The local calendar date of a UTC timestamp in a timezone (a name timezone_names holds);
    null when either is null. -#}
{% macro local_date(timestamp_expression, timezone_expression) -%}
    {{ return(adapter.dispatch('local_date', 'wfm_sync')(
        timestamp_expression, timezone_expression
    )) }}
{%- endmacro %}

{% macro duckdb__local_date(timestamp_expression, timezone_expression) -%}
    try_cast(({{ timestamp_expression }}) at time zone {{ timezone_expression }} as date)
{%- endmacro %}

{% macro postgres__local_date(timestamp_expression, timezone_expression) -%}
    cast(({{ timestamp_expression }}) at time zone {{ timezone_expression }} as date)
{%- endmacro %}

{#- A SQL value (number, boolean, date, ...) as a JSON value. -#}
{% macro json_of(expression) -%}
    {{ return(adapter.dispatch('json_of', 'wfm_sync')(expression)) }}
{%- endmacro %}

{% macro duckdb__json_of(expression) -%}
    to_json({{ expression }})
{%- endmacro %}

{% macro postgres__json_of(expression) -%}
    to_jsonb({{ expression }})
{%- endmacro %}

{#- The number of items of a JSON array; 0 for anything else (null, an object, a scalar). -#}
{% macro json_array_size(json_expression) -%}
    {{ return(adapter.dispatch('json_array_size', 'wfm_sync')(json_expression)) }}
{%- endmacro %}

{% macro duckdb__json_array_size(json_expression) -%}
    coalesce(case
        when json_type({{ json_expression }}) = 'ARRAY' then json_array_length({{ json_expression }})
    end, 0)
{%- endmacro %}

{% macro postgres__json_array_size(json_expression) -%}
    coalesce(case
        when jsonb_typeof(cast({{ json_expression }} as jsonb)) = 'array'
            then jsonb_array_length(cast({{ json_expression }} as jsonb))
    end, 0)
{%- endmacro %}

{#- A full select of the first row per `partition_by` (one key expression or several, comma
    separated) of the rows of `relation` (a CTE or table name) that satisfy `where`, in
    `order_by` order ("latest wins"): DuckDB's qualify, PostgreSQL's distinct on. Spell out
    `nulls first` / `nulls last` in `order_by` wherever nulls can occur: the two databases sort
    nulls differently by default. -#}
{% macro first_row_per(relation, partition_by, order_by, where='true') -%}
    {{ return(adapter.dispatch('first_row_per', 'wfm_sync')(
        relation, partition_by, order_by, where
    )) }}
{%- endmacro %}

{% macro duckdb__first_row_per(relation, partition_by, order_by, where) -%}
    select * from {{ relation }}
    where {{ where }}
    qualify row_number() over (partition by {{ partition_by }} order by {{ order_by }}) = 1
{%- endmacro %}

{% macro postgres__first_row_per(relation, partition_by, order_by, where) -%}
    select distinct on ({{ partition_by }}) * from {{ relation }}
    where {{ where }}
    order by {{ partition_by }}, {{ order_by }}
{%- endmacro %}

{#- The last non-null value of `expression` in the frame of the window `window_name` (a named
    window of the query): last_value ... ignore nulls. -#}
{% macro last_non_null(expression, window_name) -%}
    {{ return(adapter.dispatch('last_non_null', 'wfm_sync')(expression, window_name)) }}
{%- endmacro %}

{% macro duckdb__last_non_null(expression, window_name) -%}
    last_value({{ expression }} ignore nulls) over {{ window_name }}
{%- endmacro %}

{% macro postgres__last_non_null(expression, window_name) -%}
    (array_agg({{ expression }}) filter (where {{ expression }} is not null)
        over {{ window_name }})[count({{ expression }}) over {{ window_name }}]
{%- endmacro %}

{#- A set-returning call for a FROM clause: every value under the key `key` at any depth of a
    JSON value, as JSON. Use as `cross join lateral {{ json_values_under_key('t.col', 'k') }}
    as v (value)`. -#}
{% macro json_values_under_key(json_expression, key) -%}
    {{ return(adapter.dispatch('json_values_under_key', 'wfm_sync')(json_expression, key)) }}
{%- endmacro %}

{% macro duckdb__json_values_under_key(json_expression, key) -%}
    unnest(json_extract({{ json_expression }}, '$.."{{ key }}"'))
{%- endmacro %}

{% macro postgres__json_values_under_key(json_expression, key) -%}
    jsonb_path_query(cast({{ json_expression }} as jsonb), 'strict $.**."{{ key }}"')
{%- endmacro %}

{#- The JSON type of a value in lower case: 'array', 'object', 'null' (JSON null) or a
    scalar's type, whose name differs by database (DuckDB: varchar, bigint, double, boolean;
    PostgreSQL: string, number, boolean); SQL null for SQL null. -#}
{% macro json_type_name(json_expression) -%}
    {{ return(adapter.dispatch('json_type_name', 'wfm_sync')(json_expression)) }}
{%- endmacro %}

{% macro duckdb__json_type_name(json_expression) -%}
    lower(json_type({{ json_expression }}))
{%- endmacro %}

{% macro postgres__json_type_name(json_expression) -%}
    jsonb_typeof(cast({{ json_expression }} as jsonb))
{%- endmacro %}

{#- The instant (timestamp with time zone) a local calendar date begins in a timezone (a name
    timezone_names holds): its local midnight, which DST moves in UTC. The same SQL in DuckDB
    and PostgreSQL (a timestamp AT TIME ZONE a zone is the instant that wall time there). -#}
{% macro local_midnight(date_expression, timezone_expression) -%}
    (cast({{ date_expression }} as timestamp) at time zone {{ timezone_expression }})
{%- endmacro %}
