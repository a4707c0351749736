{#- A full select of the latest event per key (`partition_by`) among the rows of `relation` (a
    CTE of events with event_at, received_at and event_key) that satisfy `where`: newest event
    time first (an event without a time last), then the latest receipt, then the event key, so
    ties resolve the same way on every run whatever order events arrived in. -#}
{% macro latest_event(relation, partition_by, where='true') -%}
    {{ first_row_per(
        relation, partition_by,
        'event_at desc nulls last, received_at desc nulls last, event_key desc', where
    ) }}
{%- endmacro %}
