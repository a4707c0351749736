{#- Typing provider values: every cast here returns null instead of raising.

    The provider's spec allows optional fields, nulls, empty strings and, in practice, values
    its types do not cover ('2026-13-45' as a date, 'Zoë' as a timezone, integers beyond 64
    bits, objects where arrays were expected). One odd value in one row must never stop the
    build: a value that cannot be typed becomes null, and `untypable` says so, so staging
    models can count it (`untypable_value_count`, the `untypable_values` warn test).

    Types a staging model declares (its YAML `meta`, see typed_source):
      bigint    an integer within 64 bits (text must be all digits: '1.5', '1e3' are not)
      double    a finite number within ±1e15 (double_limit: no duration, rate or balance is
                larger, and sums and products of such numbers never overflow on either
                database; PostgreSQL raises where DuckDB gives infinity)
      boolean   true/false (the database's spellings: true, t, 1, yes, ...)
      date      a calendar date in years 1..9999 (ISO text; a time part is ignored)
      epoch     epoch seconds in years 1..9999, as a UTC timestamp; 0 means "never" (null)
      timezone  a timezone name the database knows (timezone_names(), in any case, as
                `at time zone` takes it; kept as sent)
      json      a JSON value (text must be valid JSON)
      varchar   text as sent: not a cast, never untypable
      timestamptz  a timestamp with its offset
      any other type try_cast (macros/cross_database.sql) supports
    Empty strings (and JSON null) count as absent: null, and not untypable. -#}

{#- The kind of a raw column's type (DuckDB's or PostgreSQL's names): text, integer, number,
    boolean, json, date, timestamp or other; a typed expression is generated for that kind
    only. -#}
{% macro raw_kind(data_type) -%}
    {%- set t = (data_type or 'varchar') | upper -%}
    {%- if t in ('VARCHAR', 'TEXT', 'STRING', 'CHAR', 'BPCHAR', 'CHARACTER', 'CHARACTER VARYING')
        or t.startswith('VARCHAR') -%}
        text
    {%- elif t in ('BIGINT', 'INTEGER', 'SMALLINT', 'TINYINT', 'HUGEINT', 'UBIGINT', 'UINTEGER',
                   'USMALLINT', 'UTINYINT', 'UHUGEINT', 'INT', 'INT8', 'INT4', 'INT2', 'LONG') -%}
        integer
    {%- elif t in ('DOUBLE', 'FLOAT', 'REAL', 'FLOAT8', 'FLOAT4', 'DOUBLE PRECISION')
             or t.startswith('DECIMAL')
             or t.startswith('NUMERIC') -%}
        number
    {%- elif t in ('BOOLEAN', 'BOOL') -%}
        boolean
    {%- elif t in ('JSON', 'JSONB') -%}
        json
    {%- elif t == 'DATE' -%}
        date
    {%- elif t.startswith('TIMESTAMP') -%}
        timestamp
    {%- else -%}
        other
    {%- endif -%}
{%- endmacro %}

{#- A raw value as trimmed text, null when absent or empty ('' and JSON null alike). -#}
{% macro raw_text(expression, kind) -%}
    {%- if kind == 'text' -%}
        nullif(trim({{ expression }}), '')
    {%- elif kind == 'json' -%}
        nullif(trim({{ json_text(expression, '') }}), '')
    {%- else -%}
        cast({{ expression }} as varchar)
    {%- endif -%}
{%- endmacro %}

{#- Epoch seconds within years 1..9999 (a number, else null). -#}
{% macro epoch_in_range(number) -%}
    ({{ number }}) between -62135596800 and 253402300799
{%- endmacro %}

{#- A raw value as a number of epoch seconds (null when not a number). -#}
{% macro epoch_number(expression, kind) -%}
    {%- if kind in ('integer', 'number') -%}
        ({{ expression }})
    {%- else -%}
        {{ try_cast(raw_text(expression, kind), 'float8') }}
    {%- endif -%}
{%- endmacro %}

{#- `expression` (a raw value of kind `kind`, see raw_kind) typed as `data_type`; null when it
    cannot be. Never raises. -#}
{% macro typed_value(expression, data_type, kind='text') -%}
    {%- set text = raw_text(expression, kind) -%}
    {%- if data_type == 'varchar' -%}
        {%- if kind == 'text' -%}{{ expression }}
        {%- elif kind == 'json' -%}{{ json_text(expression, '') }}
        {%- else -%}cast({{ expression }} as varchar)
        {%- endif -%}
    {%- elif data_type == 'bigint' -%}
        {%- if kind == 'integer' -%}
            {{ try_cast(expression, 'bigint') }}
        {%- elif kind == 'number' -%}
            case
                when {{ is_finite_number(expression) }} and {{ expression }} = trunc({{ expression }})
                    then {{ try_cast(expression, 'bigint') }}
            end
        {%- else -%}
            case
                when {{ matches_fully(text, '[+-]?[0-9]+') }}
                    then {{ try_cast(text, 'bigint') }}
            end
        {%- endif -%}
    {%- elif data_type == 'double' -%}
        {%- if kind in ('integer', 'number') -%}
            {%- set number = 'cast(' ~ expression ~ ' as float8)' -%}
        {%- else -%}
            {%- set number = try_cast(text, 'float8') -%}
        {%- endif -%}
        case when abs({{ number }}) <= {{ double_limit() }} then {{ number }} end
    {%- elif data_type == 'boolean' -%}
        {%- if kind == 'boolean' -%}
            {{ expression }}
        {%- else -%}
            {{ try_cast(text, 'boolean') }}
        {%- endif -%}
    {%- elif data_type == 'date' -%}
        {%- if kind == 'date' -%}
            {{ expression }}
        {%- elif kind == 'timestamp' -%}
            {{ try_cast(expression, 'date') }}
        {%- else -%}
            case
                when {{ try_cast(text, 'date') }} between date '0001-01-01' and date '9999-12-31'
                    then {{ try_cast(text, 'date') }}
            end
        {%- endif -%}
    {%- elif data_type == 'epoch' -%}
        {%- set number = epoch_number(expression, kind) -%}
        case
            when {{ epoch_in_range(number) }} and {{ number }} <> 0
                then to_timestamp({{ number }})
        end
    {%- elif data_type == 'timezone' -%}
        {{ known_timezone(text) }}
    {%- elif data_type == 'json' -%}
        {%- if kind == 'json' -%}
            {{ expression }}
        {%- elif kind == 'text' -%}
            {{ try_cast(text, 'json') }}
        {%- else -%}
            {{ json_of(expression) }}
        {%- endif -%}
    {%- else -%}
        {{ try_cast(expression, data_type) }}
    {%- endif -%}
{%- endmacro %}

{#- Whether `expression` holds a value that should type: present (not null, not '', not JSON
    null) and, for an epoch, not 0 ("never"); `false` when the raw kind always types (a BIGINT
    column read as bigint). A value expected but typed null is untypable. -#}
{% macro expects_value(expression, data_type, kind='text') -%}
    {%- set always = {
        'boolean': ('boolean',),
        'date': ('date', 'timestamp'),
        'json': ('json', 'integer', 'number', 'boolean', 'date', 'timestamp'),
    } -%}
    {%- set timestamps = ('timestamptz', 'timestamp with time zone', 'timestamp') -%}
    {%- if data_type == 'varchar' or kind in always.get(data_type, ())
        or (data_type in timestamps and kind == 'timestamp') -%}
        false
    {%- elif data_type == 'epoch' -%}
        ({{ raw_text(expression, kind) }} is not null
            and coalesce({{ epoch_number(expression, kind) }} <> 0, true))
    {%- else -%}
        ({{ raw_text(expression, kind) }} is not null)
    {%- endif -%}
{%- endmacro %}

{#- Whether `expression` holds a value that should type (expects_value) but does not. -#}
{% macro untypable(expression, data_type, kind='text') -%}
    {%- set expects = expects_value(expression, data_type, kind) -%}
    {%- if expects | trim == 'false' -%}
        false
    {%- else -%}
        coalesce({{ expects }} and ({{ typed_value(expression, data_type, kind) }}) is null, false)
    {%- endif -%}
{%- endmacro %}

{#- The SQL type a declared type produces (for typed nulls). -#}
{% macro sql_type(data_type) -%}
    {%- if data_type in ('timezone', 'varchar') -%}varchar
    {%- elif data_type == 'epoch' -%}timestamp with time zone
    {%- elif data_type == 'double' -%}float8
    {%- elif data_type == 'json' -%}{{ type_json() }}
    {%- else -%}{{ data_type }}
    {%- endif -%}
{%- endmacro %}

{#- A timezone name the database knows (timezone_names(), matched in any case, as
    `at time zone` matches it; kept as sent); anything else ('', 'Zoë', 'GMT+25') is null, so
    `at time zone` / timezone() never see a name they would refuse. -#}
{% macro known_timezone(expression) -%}
    case
        when lower({{ expression }}) in (
            select lower(names.name) from {{ timezone_names() }} as names
        )
            then {{ expression }}
    end
{%- endmacro %}

{#- The largest magnitude a `double` provider value may have (see the header). -#}
{% macro double_limit() -%}
    1e15
{%- endmacro %}

{#- `numerator / denominator`, null when the denominator is 0 or null (DuckDB raises on an
    integer division by zero). -#}
{% macro safe_divide(numerator, denominator) -%}
    ({{ numerator }}) / nullif({{ denominator }}, 0)
{%- endmacro %}
