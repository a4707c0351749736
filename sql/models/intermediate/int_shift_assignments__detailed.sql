-- One row per shift assignment (open shifts: one row with no user): the API's rows with the
-- shift webhook events since its last pull applied (int_shift_assignments__current), with
-- scheduled hours and the local day in the shift's own timezone; deleted assignments stay,
-- flagged. One column per shift layer (layer_<title>: the value's name) and per shift custom
-- field (custom_<name>: the value's label) when the account has few (macros/
-- shift_detail_columns.sql). Everything fct_shifts holds but what depends on the build's now
-- (has_ended), so the models that read shifts without it (the day-grain incremental marts, the
-- long forms of layers and custom fields, fct_attendance) are not rebuilt by time alone.

{%- set layer_columns, custom_columns = shift_pivot_columns() %}

with

assignments as (

    select * from {{ ref('int_shift_assignments__current') }}

),

schedulers as (

    select * from {{ ref('stg_connecteam__schedulers') }}

),

layers as (

    select
        scheduler_id,
        slot_id {{- pivot_aggregates(layer_columns, 'layer_title', 'value_name') }}
    from {{ ref('int_shift_row_layers__labelled') }}
    group by scheduler_id, slot_id

),

custom_fields as (

    select
        scheduler_id,
        slot_id {{- pivot_aggregates(custom_columns, 'custom_field_name', 'value_label') }}
    from {{ ref('int_shift_row_custom_fields__labelled') }}
    group by scheduler_id, slot_id

),

final as (

    select
        assignments.shift_assignment_key,
        assignments.scheduler_id,
        schedulers.scheduler_name,
        assignments.shift_id,
        assignments.slot_id,
        assignments.user_id,
        assignments.is_open_shift,
        assignments.title,
        assignments.job_id,
        assignments.starts_at,
        assignments.ends_at,
        assignments.timezone,
        assignments.scheduled_hours,
        assignments.unpaid_break_minutes,
        assignments.is_published,
        -- the one definition of "on the schedule" the dashboard's scheduled hours read
        assignments.is_published and not assignments.is_deleted as is_scheduled,
        {{ local_date('assignments.starts_at', 'assignments.timezone') }} as local_date,
        assignments.is_deleted,
        assignments.deleted_at,
        assignments.data_source,
        assignments.changed_at {{- pivot_select(layer_columns, 'layers') }}
        {{- pivot_select(custom_columns, 'custom_fields') }}

    from assignments
    left join schedulers on assignments.scheduler_id = schedulers.scheduler_id
    left join layers
        on
            assignments.scheduler_id = layers.scheduler_id
            and assignments.slot_id = layers.slot_id
    left join custom_fields
        on
            assignments.scheduler_id = custom_fields.scheduler_id
            and assignments.slot_id = custom_fields.slot_id

)

select * from final
