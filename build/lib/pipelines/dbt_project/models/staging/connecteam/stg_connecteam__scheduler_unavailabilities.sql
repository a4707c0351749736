-- One row per unavailability interval of a user in a scheduler, from the API. An all-day one
-- (or one without times) covers its local day; times are local to its timezone. A record the
-- provider stopped returning is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'scheduler_unavailabilities') }}

),

renamed as (

    select
        scheduler_id,
        id as unavailability_id,
        user_id,
        unavailability_date,
        start_time,
        end_time,
        timezone,
        note,
        deleted_at,
        untypable_value_count,
        coalesce(is_all_day, start_time is null, false) as is_all_day,
        coalesce(is_deleted, false) as is_deleted,
        {{ readable_key(['scheduler_id', 'id']) }} as unavailability_key

    from source

)

select * from renamed
