{#- Data tests of a raw table that does not exist yet pass: a stream the provider has returned
    no record for (no form, no scheduler yet) has no table, and nothing in no table breaks a key.
    Overrides dbt's unique, not_null and accepted_values on DuckDB and on PostgreSQL (one
    implementation, reached from each adapter's name); on an existing relation they are dbt's
    own. -#}
{% macro duckdb__test_unique(model, column_name) -%}
    {{ unique_unless_absent(model, column_name) }}
{%- endmacro %}

{% macro postgres__test_unique(model, column_name) -%}
    {{ unique_unless_absent(model, column_name) }}
{%- endmacro %}

{% macro duckdb__test_not_null(model, column_name) -%}
    {{ not_null_unless_absent(model, column_name) }}
{%- endmacro %}

{% macro postgres__test_not_null(model, column_name) -%}
    {{ not_null_unless_absent(model, column_name) }}
{%- endmacro %}

{% macro duckdb__test_accepted_values(model, column_name, values, quote=True) -%}
    {{ accepted_values_unless_absent(model, column_name, values, quote) }}
{%- endmacro %}

{% macro postgres__test_accepted_values(model, column_name, values, quote=True) -%}
    {{ accepted_values_unless_absent(model, column_name, values, quote) }}
{%- endmacro %}

{% macro unique_unless_absent(model, column_name) -%}
    {%- if relation_missing(model) -%}{{ no_failures() }}
    {%- else -%}{{ dbt.default__test_unique(model, column_name) }}
    {%- endif -%}
{%- endmacro %}

{% macro not_null_unless_absent(model, column_name) -%}
    {%- if relation_missing(model) -%}{{ no_failures() }}
    {%- else -%}{{ dbt.default__test_not_null(model, column_name) }}
    {%- endif -%}
{%- endmacro %}

{% macro accepted_values_unless_absent(model, column_name, values, quote) -%}
    {%- if relation_missing(model) -%}{{ no_failures() }}
    {%- else -%}{{ dbt.default__test_accepted_values(model, column_name, values, quote) }}
    {%- endif -%}
{%- endmacro %}

{#- Whether `relation` (a model or a source table) does not exist in the warehouse. -#}
{% macro relation_missing(relation) -%}
    {%- if not execute or relation.identifier is none -%}{{ return(false) }}{%- endif -%}
    {%- set found = adapter.get_relation(
        database=relation.database, schema=relation.schema, identifier=relation.identifier
    ) -%}
    {{ return(found is none) }}
{%- endmacro %}

{% macro no_failures() -%}
    select 1 as missing_relation where false
{%- endmacro %}
