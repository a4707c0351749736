{#- Rows of a staging model holding at least one provider value that could not be typed (see the
    source_or_empty macro); declared with severity warn: counted and shown by `wfm-sync status`,
    never a reason to stop the nightly. -#}
{% test untypable_values(model) %}
    select * from {{ model }} where untypable_value_count > 0
{% endtest %}
