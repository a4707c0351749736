-- One row per version of a V1 shift row the sync loaded (shift_versions is append-only): new
-- and changed rows and tombstones, with the sync's time (observed_at). One row per assignment
-- as in stg_connecteam__shifts: a V1 row holds one assignee, an open shift none.

with

source as (

    select * from {{ typed_source('connecteam', 'shift_versions') }}

),

renamed as (

    select
        version_key as shift_version_key,
        scheduler_id,
        id as slot_id,
        title,
        timezone,
        start_time as starts_at,
        end_time as ends_at,
        update_time as updated_at,
        observed_at,
        deleted_at,
        untypable_value_count,
        coalesce(shift_id, split_part(id, ':', 1)) as shift_id,
        case
            when {{ json_array_size('assigned_user_ids') }} = 1
                then {{ try_cast("assigned_user_ids ->> 0", 'bigint') }}
        end as user_id,
        coalesce(is_published, false) as is_published,
        coalesce(is_open_shift, false) as is_open_shift,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
