{#- Whether a webhook event's time was sent but is not a plausible one: the fold's flag
    (webhooks.events.is_event_time_implausible), or, for rows folded before that column existed,
    an eventTimestamp / evnetTimestamp in the payload that gave no event_timestamp. `relation`
    qualifies the columns (e.g. 'source'); none when empty. -#}
{% macro event_time_implausible(relation='') -%}
    {%- set p = relation ~ '.' if relation else '' -%}
    coalesce(
        {{ p }}is_event_time_implausible,
        {{ p }}event_timestamp is null
        and coalesce(
            {{ p }}payload ->> 'eventTimestamp', {{ p }}payload ->> 'evnetTimestamp'
        ) is not null
    )
{%- endmacro %}
