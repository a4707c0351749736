-- Per time clock, what the API pull covers: activities starting in [covered_from, pulled_at).
{% set columns = {'time_clock_id': 'bigint', 'covered_from': 'bigint', 'pulled_at': 'bigint'} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'time_activity_coverage', columns) }}

),

renamed as (

    select
        time_clock_id,
        {{ epoch_to_utc('covered_from') }} as covered_from,
        {{ epoch_to_utc('pulled_at') }} as pulled_at

    from source

)

select * from renamed
