{#- A source table that exists only once the provider has returned a record for it: the table
    when it exists, else an empty relation with the given columns ({name: type}). -#}
{% macro source_or_empty(source_name, table_name, columns) -%}
    {%- set src = source(source_name, table_name) -%}
    {%- set found = adapter.get_relation(
        database=src.database, schema=src.schema, identifier=src.identifier
    ) -%}
    {%- if found is not none -%}
        {{ src }}
    {%- else -%}
        (select
        {%- for name, data_type in columns.items() %}
            cast(null as {{ data_type }}) as {{ name }}{{ "," if not loop.last }}
        {%- endfor %}
        where false)
    {%- endif -%}
{%- endmacro %}
