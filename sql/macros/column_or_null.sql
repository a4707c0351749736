{#- A column of a source that may not exist yet (the provider omits fields no record has):
    the column when present, else a typed null. -#}
{% macro column_or_null(relation, column, data_type) -%}
    {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | list -%}
    {%- if column in names -%}{{ column }}{%- else -%}cast(null as {{ data_type }}){%- endif -%}
{%- endmacro %}
