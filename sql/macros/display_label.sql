{#- A row's name as a chart or filter shows it, unique within the model: `name_sql` (text), or
    `<noun> <id>` when the row has no name; ` (<id>)` appended where two rows would otherwise show
    the same name (two jobs both called "Cashier"). Used by the dimensions (dim_jobs,
    dim_schedulers, dim_time_clocks), over one row per id. -#}
{% macro display_label(name_sql, id_sql, noun) -%}
    case
        when count(*) over (
            partition by coalesce({{ name_sql }}, '{{ noun }} ' || cast({{ id_sql }} as varchar))
        ) > 1
            then coalesce({{ name_sql }}, '{{ noun }} ' || cast({{ id_sql }} as varchar))
            || ' (' || cast({{ id_sql }} as varchar) || ')'
        else coalesce({{ name_sql }}, '{{ noun }} ' || cast({{ id_sql }} as varchar))
    end
{%- endmacro %}
