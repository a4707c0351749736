-- One row per smart group (a department, location or team users belong to).
-- A record the provider stopped returning is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'smart_groups') }}

),

renamed as (

    select
        id as group_id,
        name as group_name,
        description,
        group_segment_id,
        number_of_users,
        is_automatically_created,
        admin_user_ids,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
