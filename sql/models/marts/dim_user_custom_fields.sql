-- One row per user x custom field value the user record holds, labelled: the field's name, type
-- and category as the account's definitions list them now (else as the user record carries
-- them), and the value as text: a dropdown's chosen options by their labels (the options
-- listing, else the definition's own options, else the label the value carries), joined by ', '
-- in the order chosen; any other value as its text.

with

user_fields as (

    select * from {{ ref('stg_connecteam__user_custom_fields') }}

),

definitions as (

    select * from {{ ref('stg_connecteam__user_custom_field_definitions') }}

),

categories as (

    select * from {{ ref('stg_connecteam__user_custom_field_categories') }}

),

listed_options as (

    select
        custom_field_id,
        cast(option_id as varchar) as option_id,
        option_label
    from {{ ref('stg_connecteam__user_custom_field_options') }}

),

defined_options as (

    select
        definitions.custom_field_id,
        {{ json_text('items.dropdown_option', 'id') }} as option_id,
        {{ json_text('items.dropdown_option', 'value') }} as option_label
    from definitions
    cross join
        lateral {{ json_items('definitions.dropdown_options') }} as items (dropdown_option)

),

chosen as (

    {{ chosen_options('user_fields', 'value_json', [
        'user_custom_field_key', 'custom_field_id'
    ]) }}

),

labels as (

    select
        chosen.user_custom_field_key,
        string_agg(
            coalesce(
                listed_options.option_label, defined_options.option_label,
                chosen.carried_label, chosen.option_id
            ),
            ', '
            order by chosen.item_number
        ) as chosen_labels
    from chosen
    left join listed_options
        on
            chosen.custom_field_id = listed_options.custom_field_id
            and chosen.option_id = listed_options.option_id
    left join defined_options
        on
            chosen.custom_field_id = defined_options.custom_field_id
            and chosen.option_id = defined_options.option_id
    group by chosen.user_custom_field_key

),

final as (

    select
        user_fields.user_custom_field_key,
        user_fields.user_id,
        user_fields.custom_field_id,
        coalesce(definitions.custom_field_name, user_fields.custom_field_name)
            as custom_field_name,
        coalesce(definitions.custom_field_type, user_fields.custom_field_type)
            as custom_field_type,
        definitions.category_id,
        categories.category_name,
        coalesce(labels.chosen_labels, user_fields.value_text) as value_label,
        user_fields.value_json

    from user_fields
    left join definitions on user_fields.custom_field_id = definitions.custom_field_id
    left join categories on definitions.category_id = categories.category_id
    left join labels on user_fields.user_custom_field_key = labels.user_custom_field_key

)

select * from final
