-- One row per smart group segment (the kind of group: departments, locations, teams, ...).
-- A record the provider stopped returning is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'smart_group_segments') }}

),

renamed as (

    select
        id as group_segment_id,
        name as segment_name,
        color,
        sort_order,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
