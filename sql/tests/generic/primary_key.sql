{#- A key column holds one non-null value per row: dbt's unique and not_null in one query, so a
    build runs one data test per key rather than two (each data test is a dbt node, about 25 ms
    of dbt's own work). Offending rows as dbt's unique test gives them, (unique_field,
    n_records): every duplicated value with its count, and null with the count of rows without
    a key. Passes on a raw table that does not exist yet (macros/tests_of_absent_tables.sql). -#}
{% test primary_key(model, column_name) %}
    {%- if relation_missing(model) -%}{{ no_failures() }}
    {%- else %}
    select {{ column_name }} as unique_field, count(*) as n_records
    from {{ model }}
    group by {{ column_name }}
    having {{ column_name }} is null or count(*) > 1
    {%- endif %}
{% endtest %}
