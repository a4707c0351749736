-- One row per user assigned to an onboarding pack, with their progress.
-- A record the provider stopped returning is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'onboarding_pack_assignments') }}

),

renamed as (

    select
        onboarding_assignment_key,
        pack_id,
        id as assignment_id,
        user_id,
        status,
        is_waiting_approval,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
