{#- The layer columns fct_shifts carries: `[(layer title, column name), ...]` for the distinct
    titles of the live shift layers in `layers` (stg_connecteam__shift_layers), ordered by
    title, when there are at most var('shift_layer_columns_max') of them; none otherwise (the
    long form fct_shift_layer_values serves every account), at parse time, and in a unit test.
    A column is `layer_` and the title in lower case with every run of other characters than
    a-z and 0-9 as `_` (`Position` -> layer_position); `layer_<n>` for a title with none of
    those; a name taken already gets `_<n>`. -#}
{% macro shift_layer_columns(layers) -%}
    {%- if not execute or model.resource_type == 'unit_test' -%}{{ return([]) }}{%- endif -%}
    {%- set relation = adapter.get_relation(layers.database, layers.schema, layers.identifier) -%}
    {%- if relation is none -%}{{ return([]) }}{%- endif -%}
    {%- set found = run_query(
        'select distinct layer_title from ' ~ layers
        ~ ' where not is_deleted and layer_title is not null order by layer_title'
    ) -%}
    {%- set titles = found.columns[0].values() -%}
    {%- if titles | length > var('shift_layer_columns_max') -%}{{ return([]) }}{%- endif -%}
    {%- set columns = [] -%}
    {%- set taken = [] -%}
    {%- for title in titles -%}
        {%- set slug = modules.re.sub('[^a-z0-9]+', '_', title | lower).strip('_') -%}
        {%- set name = 'layer_' ~ (slug if slug else loop.index | string) -%}
        {%- if name in taken -%}{%- set name = name ~ '_' ~ loop.index -%}{%- endif -%}
        {%- do taken.append(name) -%}
        {%- do columns.append((title, name)) -%}
    {%- endfor -%}
    {{ return(columns) }}
{%- endmacro %}

{#- `text` as a SQL string literal (single quotes doubled). -#}
{% macro text_literal(text) -%}
    '{{ text | replace("'", "''") }}'
{%- endmacro %}

{#- The aggregates of fct_shifts' layers CTE, one per layer column: `, max(value_name) filter
    (where layer_title = '<title>') as <column>` (nothing without layer columns). -#}
{% macro shift_layer_aggregates(layer_columns) -%}
    {%- for title, column in layer_columns -%}
        , max(value_name) filter (where layer_title = {{ text_literal(title) }}) as {{ column }}
    {%- endfor -%}
{%- endmacro %}

{#- The layer columns of `relation` as select items: `, <relation>.<column>` each. -#}
{% macro shift_layer_select(layer_columns, relation) -%}
    {%- for _, column in layer_columns -%}, {{ relation }}.{{ column }}{%- endfor -%}
{%- endmacro %}
