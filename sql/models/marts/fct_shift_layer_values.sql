-- One row per shift assignment x shift layer it carries (position, location, department...):
-- the long form every account gets, whatever its number of layers; fct_shifts carries one
-- column per layer when the account has few. A V2 shift row's layers hold for each of its users.
-- Assignments known only from webhook events carry no layers until the next sync lists them.

with

shifts as (

    select * from {{ ref('int_shift_assignments__detailed') }}

),

labelled as (

    select * from {{ ref('int_shift_row_layers__labelled') }}

),

final as (

    select
        {{ readable_key([
            'shifts.shift_assignment_key', 'coalesce(labelled.layer_id, labelled.shift_row_layer_key)'
        ]) }} as shift_layer_value_key,
        shifts.shift_assignment_key,
        shifts.scheduler_id,
        shifts.shift_id,
        shifts.user_id,
        shifts.local_date,
        shifts.is_scheduled,
        labelled.layer_id,
        labelled.layer_title,
        labelled.value_id,
        labelled.value_name,
        labelled.is_listed_value

    from shifts
    inner join labelled
        on
            shifts.scheduler_id = labelled.scheduler_id
            and shifts.slot_id = labelled.slot_id

)

select * from final
