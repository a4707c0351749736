{%- set columns = {'id': 'bigint', 'name': 'varchar', 'is_archived': 'boolean'} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'time_clocks', columns) }}

),

renamed as (

    select
        untypable_value_count,
        id as time_clock_id,
        name as time_clock_name,
        is_archived

    from source

)

select * from renamed
