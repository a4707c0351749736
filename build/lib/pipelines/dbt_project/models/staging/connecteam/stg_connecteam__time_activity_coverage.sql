-- Per time clock, what the API pull covers: every run re-pulls [window_from, pulled_at); rows
-- back to covered_from were pulled once and are as of their last pull.

with

source as (

    select * from {{ typed_source('connecteam', 'time_activity_coverage') }}

),

renamed as (

    select
        time_clock_id,
        covered_from,
        window_from,
        pulled_at,
        untypable_value_count

    from source

)

select * from renamed
