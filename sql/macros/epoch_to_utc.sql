{#- Provider epoch seconds (0 or null meaning "never") as a UTC timestamp with time zone; a value
    that is not a number of seconds within years 1..9999 becomes null (never an error). -#}
{% macro epoch_to_utc(expression) -%}
    case
        when try_cast({{ expression }} as bigint) between -62135596800 and 253402300799
            then to_timestamp(nullif(try_cast({{ expression }} as bigint), 0))
    end
{%- endmacro %}
