{#- A readable key of several columns joined with '/', a missing part spelled 'none', so a row whose
    provider values were null or untypable keeps a key (and the key stays unique per
    combination) instead of becoming null. -#}
{% macro readable_key(parts) -%}
    {%- for part in parts -%}
        coalesce(cast({{ part }} as varchar), 'none'){{ " || '/' || " if not loop.last }}
    {%- endfor -%}
{%- endmacro %}
