-- One row per user in an onboarding pack (the provider's assignment), with where they stand:
-- completed (the provider's status), waiting for an admin's approval (every required step done:
-- isWaitingApproval), or in progress. Only what the provider lists today: an assignment it no
-- longer lists, or one of a pack it no longer lists, is left out (the staging models keep them,
-- flagged is_deleted). A status outside the spec's two is kept as it came, its stage 'other'.

with

assignments as (

    select * from {{ ref('stg_connecteam__onboarding_pack_assignments') }}
    where not is_deleted

),

packs as (

    select * from {{ ref('stg_connecteam__onboarding_packs') }}

),

users as (

    select * from {{ ref('dim_users') }}

)

select
    assignments.onboarding_assignment_key,
    assignments.pack_id,
    packs.pack_name,
    coalesce(packs.is_default, false) as is_default_pack,
    assignments.user_id,
    users.user_label,
    coalesce(users.is_archived, false) as is_user_archived,
    assignments.status,
    case
        when assignments.status = 'completed' then 'completed'
        when assignments.status = 'in_progress' and assignments.is_waiting_approval
            then 'waiting_for_approval'
        when assignments.status = 'in_progress' then 'in_progress'
        else 'other'
    end as onboarding_stage,
    coalesce(assignments.status = 'completed', false) as is_completed,
    coalesce(assignments.is_waiting_approval, false) as is_waiting_approval
from assignments
left join packs on assignments.pack_id = packs.pack_id
left join users on assignments.user_id = users.user_id
where not coalesce(packs.is_deleted, false)
