-- One row per time-off policy type, its policies as JSON. A type the provider stopped returning
-- is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'time_off_policy_types') }}

),

renamed as (

    select
        id as policy_type_id,
        name as policy_type_name,
        policies,
        deleted_at,
        untypable_value_count,
        {{ json_array_size('policies') }} as policy_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
