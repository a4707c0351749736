-- One row per scheduler, with its timezone name.

with

source as (

    select * from {{ typed_source('connecteam', 'schedulers') }}

),

renamed as (

    select
        scheduler_id,
        name as scheduler_name,
        timezone,
        untypable_value_count,
        coalesce(is_archived, false) as is_archived

    from source

)

select * from renamed
