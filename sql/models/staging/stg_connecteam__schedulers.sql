{%- set columns = {
    'scheduler_id': 'bigint', 'name': 'varchar', 'timezone': 'timezone', 'is_archived': 'boolean'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'schedulers', columns) }}

),

renamed as (

    select
        untypable_value_count,
        scheduler_id,
        name as scheduler_name,
        timezone,
        coalesce(is_archived, false) as is_archived

    from source

)

select * from renamed
