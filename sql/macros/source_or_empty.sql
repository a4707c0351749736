{#- A provider table as the staging models read it: every column the model declares
    ({name: type}), typed, whatever the provider sent, and how many values of the row could not
    be typed.

    - The table exists only once the provider returned a record for it: until then an empty
      relation with the declared columns.
    - A column exists only once some record had the field: a declared column that is missing
      is a typed null.
    - A value that cannot become the declared type (text in a number column, '' or '2026-13-45'
      in a date column) becomes null: try_cast never raises. The type 'timezone' keeps only
      names the database knows (valid_timezone). Other columns pass unchanged.
    - untypable_value_count: per row, the declared columns whose present value could not be
      typed, plus one when the sync kept values aside in untyped_values (sources/connecteam/
      arrow_rows.py). A warn-severity test per model (untypable_values) counts such rows.
    The declarations are what a model reads from the provider's table: the staging spec-name
    test (tests/test_staging_spec_names.py) checks them against the provider's spec. -#}
{% macro source_or_empty(source_name, table_name, columns) -%}
{%- set src = source(source_name, table_name) -%}
    {%- set found = adapter.get_relation(
        database=src.database, schema=src.schema, identifier=src.identifier
    ) -%}
{%- if found is not none -%}
{%- set present = adapter.get_columns_in_relation(found) | map(attribute='name') | list -%}
{%- set kept = present | reject('in', columns.keys()) | list -%}
(select
{%- for name in kept %}
{{ adapter.quote(name) }},
{%- endfor %}
{%- for name, data_type in columns.items() %}
{{ typed_column(name, data_type, name in present) }} as {{ name }},
{%- endfor %}
            0
{%- set checked = columns.items() | rejectattr(1, 'in', ('varchar', 'json')) -%}
{%- for name, data_type in checked if name in present %}
            + case
                when {{ adapter.quote(name) }} is not null
                    and {{ typed_column(name, data_type, true) }} is null then 1 else 0
            end
{%- endfor %}
{%- if 'untyped_values' in present %}
            + case when untyped_values is not null then 1 else 0 end
        {%- endif %} as untypable_value_count
        from {{ src }})
    {%- else -%}
(select
{%- for name, data_type in columns.items() %}
            cast(null as {{ 'varchar' if data_type == 'timezone' else data_type }}) as {{ name }},
{%- endfor %}
            0 as untypable_value_count
        where false)
{%- endif -%}
{%- endmacro %}

{#- One declared column, typed: try_cast, or valid_timezone for the type 'timezone'; a typed
    null when the column is absent. -#}
{% macro typed_column(name, data_type, present) -%}
{%- if not present -%}
        cast(null as {{ 'varchar' if data_type == 'timezone' else data_type }})
    {%- elif data_type == 'timezone' -%}
        {{ valid_timezone('try_cast(' ~ adapter.quote(name) ~ ' as varchar)') }}
    {%- else -%}
try_cast({{ adapter.quote(name) }} as {{ data_type }})
{%- endif -%}
{%- endmacro %}
