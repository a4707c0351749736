-- One row per shift assignment x shift custom field value it carries, with the field's name and
-- the value's label (int_shift_row_custom_fields__labelled). A V2 shift row's values hold for
-- each of its users.

with

shifts as (

    select * from {{ ref('int_shift_assignments__detailed') }}

),

labelled as (

    select * from {{ ref('int_shift_row_custom_fields__labelled') }}

),

final as (

    select
        {{ readable_key([
            'shifts.shift_assignment_key',
            "coalesce(cast(labelled.custom_field_id as varchar), labelled.shift_row_custom_field_key)"
        ]) }} as shift_custom_field_value_key,
        shifts.shift_assignment_key,
        shifts.scheduler_id,
        shifts.shift_id,
        shifts.user_id,
        shifts.local_date,
        labelled.custom_field_id,
        labelled.custom_field_name,
        labelled.custom_field_type,
        labelled.value_label,
        labelled.value_json

    from shifts
    inner join labelled
        on
            shifts.scheduler_id = labelled.scheduler_id
            and shifts.slot_id = labelled.slot_id

)

select * from final
