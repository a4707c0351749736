-- One row per scheduler and window a sync pulled, with when that pull began: the API's rows of
-- shifts starting in [window_from, window_to) are as of pulled_at.

with

source as (

    select * from {{ typed_source('connecteam', 'shift_coverage') }}

),

renamed as (

    select
        coverage_key,
        scheduler_id,
        window_from,
        window_to,
        pulled_at,
        untypable_value_count

    from source

)

select * from renamed
