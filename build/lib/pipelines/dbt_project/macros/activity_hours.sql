{#- Hours of a time activity, rounded to 4 decimals:
    * a time off (activity_type 'time_off') counts its duration (TimeOffActivityResponse
      `duration`, required by the spec; `end` is optional): duration.value hours, or
      duration.value days x var('time_off_hours_per_day'); a duration missing or in units we do
      not know falls back to end minus start;
    * any other activity (shift, manual break) counts end minus start;
    null when neither can be computed (an open punch, a time off without duration or end). -#}
{% macro activity_hours(activity_type, started_at, ended_at, duration_value, duration_units) -%}
    {%- set hours -%}
        case
            when
                {{ activity_type }} = 'time_off'
                and {{ duration_value }} is not null
                and {{ duration_units }} in ('hours', 'days')
                then {{ duration_value }} * case {{ duration_units }}
                    when 'days' then {{ var('time_off_hours_per_day') }}
                    else 1
                end
            when {{ ended_at }} is not null
                then {{ epoch_seconds(ended_at ~ ' - ' ~ started_at) }} / 3600.0
        end
    {%- endset -%}
    {{ round_to(hours, 4) }}
{%- endmacro %}
