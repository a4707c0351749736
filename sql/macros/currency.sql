{#- The account's currency as a SQL literal: var('currency'), an ISO 4217 code such as `EUR`
    (the provider's API states no currency for pay rates or timesheet pay), or null when unset.
    A value that is not three letters stops the build with a message naming the variable. -#}
{% macro currency_literal() -%}
    {%- set value = var('currency') -%}
    {%- if value is none or value == '' -%}
        cast(null as varchar)
    {%- elif modules.re.fullmatch('[A-Za-z]{3}', value | string) -%}
        cast('{{ value | string | upper }}' as varchar)
    {%- else -%}
        {{ exceptions.raise_compiler_error(
            "var('currency') = '" ~ value ~ "' is not an ISO 4217 code (three letters, e.g. EUR); "
            ~ "set WFM_SYNC_CURRENCY or the var in sql/dbt_project.yml"
        ) }}
    {%- endif -%}
{%- endmacro %}
