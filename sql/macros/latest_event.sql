{#- Keep the latest event per key: newest event time first, then the latest receipt, then the
    event key, so ties resolve the same way on every run whatever order events arrived in. -#}
{% macro latest_event(partition_by) -%}
    qualify row_number() over (
        partition by {{ partition_by }} order by event_at desc, received_at desc, event_key desc
    ) = 1
{%- endmacro %}
