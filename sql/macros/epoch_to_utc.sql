{#- Provider epoch seconds (0 or null meaning "never") as a UTC timestamp with time zone. -#}
{% macro epoch_to_utc(expression) -%}
    to_timestamp(nullif(cast({{ expression }} as bigint), 0))
{%- endmacro %}
