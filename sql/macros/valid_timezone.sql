{#- A timezone name the provider sent, when the database knows it (an IANA name such as
    Europe/Berlin); anything else ('', 'Zoë', 'GMT+25') becomes null, so local dates and times
    computed from it are null instead of failing the build. -#}
{% macro valid_timezone(expression) -%}
    case
        when ({{ expression }}) in (select tz.name from pg_timezone_names() as tz)
            then ({{ expression }})
    end
{%- endmacro %}
