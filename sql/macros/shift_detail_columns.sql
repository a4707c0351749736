{#- The columns fct_shifts pivots from a listing of names: `[(name, column name), ...]` for the
    distinct `name_column` values of the live rows of `listing` (stg_connecteam__shift_layers'
    layer_title, stg_connecteam__shift_custom_fields' custom_field_name), ordered by name, when
    there are at most var('shift_detail_columns_max') of them; none otherwise (the long forms
    fct_shift_layer_values and fct_shift_custom_field_values serve every account), at parse
    time, and in a unit test. A column is `prefix` and the name in lower case with every run of
    other characters than a-z and 0-9 as `_` (`Position` -> layer_position, `Dress code` ->
    custom_dress_code); `<prefix><n>` for a name with none of those; a column name taken
    already gets `_<n>`. -#}
{% macro shift_detail_columns(listing, name_column, prefix) -%}
    {%- if not execute or model.resource_type == 'unit_test' -%}{{ return([]) }}{%- endif -%}
    {%- set relation = adapter.get_relation(
        listing.database, listing.schema, listing.identifier) -%}
    {%- if relation is none -%}{{ return([]) }}{%- endif -%}
    {%- set found = run_query(
        'select distinct ' ~ name_column ~ ' from ' ~ listing
        ~ ' where not is_deleted and ' ~ name_column ~ ' is not null order by 1'
    ) -%}
    {%- set names = found.columns[0].values() -%}
    {%- if names | length > var('shift_detail_columns_max') -%}{{ return([]) }}{%- endif -%}
    {%- set columns = [] -%}
    {%- set taken = [] -%}
    {%- for name in names -%}
        {%- set slug = modules.re.sub('[^a-z0-9]+', '_', name | lower).strip('_') -%}
        {%- set column = prefix ~ (slug if slug else loop.index | string) -%}
        {%- if column in taken -%}{%- set column = column ~ '_' ~ loop.index -%}{%- endif -%}
        {%- do taken.append(column) -%}
        {%- do columns.append((name, column)) -%}
    {%- endfor -%}
    {{ return(columns) }}
{%- endmacro %}

{#- The pivoted columns of fct_shifts (and int_shift_assignments__detailed): `(layer columns,
    custom field columns)`, each as shift_detail_columns gives them, from the shift layers' titles
    and the shift custom fields' names. -#}
{% macro shift_pivot_columns() -%}
    {{ return((
        shift_detail_columns(ref('stg_connecteam__shift_layers'), 'layer_title', 'layer_'),
        shift_detail_columns(
            ref('stg_connecteam__shift_custom_fields'), 'custom_field_name', 'custom_'),
    )) }}
{%- endmacro %}

{#- `text` as a SQL string literal (single quotes doubled). -#}
{% macro text_literal(text) -%}
    '{{ text | replace("'", "''") }}'
{%- endmacro %}

{#- The aggregates of a pivot, one per column of `columns` (shift_detail_columns): `, max(<value>)
    filter (where <name_column> = '<name>') as <column>` (nothing without columns). -#}
{% macro pivot_aggregates(columns, name_column, value_column) -%}
    {%- for name, column in columns -%}
        , max({{ value_column }}) filter (where {{ name_column }} = {{ text_literal(name) }})
        as {{ column }}
    {%- endfor -%}
{%- endmacro %}

{#- The pivoted columns of `relation` as select items: `, <relation>.<column>` each. -#}
{% macro pivot_select(columns, relation) -%}
    {%- for _, column in columns -%}, {{ relation }}.{{ column }}{%- endfor -%}
{%- endmacro %}
