{#- A readable key of several columns joined with '/'. A null part makes the whole key null, so a
    key's primary_key test fails when a part the model assumed present is missing: a part that can
    be null by design names its own placeholder at the call site (coalesce(user_id, 'open'),
    'unlisted', 'unknown-day', ...), and rows that cannot be keyed are left out before. -#}
{% macro readable_key(parts) -%}
    {%- for part in parts -%}
        cast({{ part }} as varchar){{ " || '/' || " if not loop.last }}
    {%- endfor -%}
{%- endmacro %}
