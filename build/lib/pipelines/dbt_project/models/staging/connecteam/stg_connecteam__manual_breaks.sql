-- One row per time clock x manual-break policy (whether a break of it is paid, its configured
-- duration); policies the provider stopped listing are kept with is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'manual_breaks') }}

),

renamed as (

    select
        manual_break_key,
        time_clock_id,
        id as manual_break_id,
        name as manual_break_name,
        is_paid,
        duration as duration_minutes,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
