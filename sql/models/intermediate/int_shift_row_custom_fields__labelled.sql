-- One row per shift row from the API x custom field value it carries, labelled: the field's name
-- and type as the scheduler's shift custom fields list them now (else as the shift carries
-- them), and the value as text: a dropdown's chosen options by their current labels (else the
-- label the shift carries), joined by ', ' in the order chosen; any other value as its text.

with

row_fields as (

    select * from {{ ref('stg_connecteam__shift_row_custom_fields') }}

),

settings as (

    select * from {{ ref('stg_connecteam__shift_custom_fields') }}

),

listed_options as (

    select
        settings.scheduler_id,
        settings.custom_field_id,
        {{ json_text('items.dropdown_option', 'id') }} as option_id,
        {{ json_text('items.dropdown_option', 'value') }} as option_label
    from settings
    cross join
        lateral {{ json_items('settings.dropdown_options') }} as items (dropdown_option)

),

chosen as (

    {{ chosen_options('row_fields', 'value_json', [
        'shift_row_custom_field_key', 'scheduler_id', 'custom_field_id'
    ]) }}

),

labels as (

    select
        chosen.shift_row_custom_field_key,
        string_agg(
            coalesce(listed_options.option_label, chosen.carried_label, chosen.option_id), ', '
            order by chosen.item_number
        ) as chosen_labels
    from chosen
    left join listed_options
        on
            chosen.scheduler_id = listed_options.scheduler_id
            and cast(chosen.custom_field_id as varchar) = listed_options.custom_field_id
            and chosen.option_id = listed_options.option_id
    group by chosen.shift_row_custom_field_key

),

final as (

    select
        row_fields.shift_row_custom_field_key,
        row_fields.scheduler_id,
        row_fields.slot_id,
        row_fields.custom_field_id,
        coalesce(settings.custom_field_name, row_fields.custom_field_name) as custom_field_name,
        coalesce(settings.custom_field_type, row_fields.custom_field_type) as custom_field_type,
        coalesce(labels.chosen_labels, row_fields.value_text) as value_label,
        row_fields.value_json

    from row_fields
    left join settings
        on
            row_fields.scheduler_id = settings.scheduler_id
            and cast(row_fields.custom_field_id as varchar) = settings.custom_field_id
    left join labels
        on row_fields.shift_row_custom_field_key = labels.shift_row_custom_field_key

)

select * from final
