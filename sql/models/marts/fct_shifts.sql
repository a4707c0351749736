-- One row per shift assignment (open shifts: one row with no user) as of now: the assignments
-- of int_shift_assignments__detailed (the API's rows with the shift webhook events since its
-- last pull applied, scheduled hours, the local day in the shift's own timezone, one column per
-- shift layer and custom field when the account has few), and whether each had ended by the
-- build's clock: the one column that depends on the build's now.

{%- set layer_columns, custom_columns = shift_pivot_columns() %}

with

detailed as (

    select * from {{ ref('int_shift_assignments__detailed') }}

),

final as (

    select
        detailed.shift_assignment_key,
        detailed.scheduler_id,
        detailed.scheduler_name,
        detailed.shift_id,
        detailed.slot_id,
        detailed.user_id,
        detailed.is_open_shift,
        detailed.title,
        detailed.job_id,
        detailed.starts_at,
        detailed.ends_at,
        detailed.timezone,
        detailed.scheduled_hours,
        detailed.unpaid_break_minutes,
        detailed.is_published,
        detailed.is_scheduled,
        -- over by the build's clock: what worked-versus-scheduled comparisons stop at
        coalesce(detailed.ends_at <= {{ as_of_time() }}, false) as has_ended,
        detailed.local_date,
        detailed.is_deleted,
        detailed.deleted_at,
        detailed.data_source,
        detailed.changed_at {{- pivot_select(layer_columns, 'detailed') }}
        {{- pivot_select(custom_columns, 'detailed') }}
    from detailed

)

select * from final
