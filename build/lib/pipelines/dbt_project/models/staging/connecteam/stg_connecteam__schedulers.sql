-- One row per scheduler, with its timezone name.
-- A record the provider stopped returning is kept, flagged is_deleted; deleted_at is when the
-- sync found it gone.

with

source as (

    select * from {{ typed_source('connecteam', 'schedulers') }}

),

renamed as (

    select
        scheduler_id,
        name as scheduler_name,
        timezone,
        deleted_at,
        untypable_value_count,
        coalesce(is_archived, false) as is_archived,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
