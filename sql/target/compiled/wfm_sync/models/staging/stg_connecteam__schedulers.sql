with

source as (

    select * from "warehouse"."connecteam"."schedulers"

),

renamed as (

    select
        scheduler_id,
        name as scheduler_name,
        timezone,
        coalesce(is_archived, false) as is_archived

    from source

)

select * from renamed