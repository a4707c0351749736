-- Per time clock, what the API pull covers: every run re-pulls [window_from, pulled_at); rows
-- back to covered_from were pulled once and are as of their last pull.
{% set columns = {
    'time_clock_id': 'bigint', 'covered_from': 'bigint', 'window_from': 'bigint',
    'pulled_at': 'bigint'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'time_activity_coverage', columns) }}

),

renamed as (

    select
        untypable_value_count,
        time_clock_id,
        {{ epoch_to_utc('covered_from') }} as covered_from,
        {{ epoch_to_utc('window_from') }} as window_from,
        {{ epoch_to_utc('pulled_at') }} as pulled_at

    from source

)

select * from renamed
