-- One row per version of a user record: every version the sync loaded (user_versions), a
-- version equal to the one before it dropped. A version is valid from the provider's modifiedAt
-- when that is a time after the previous version's sync and not after its own sync (the provider
-- changed the record then), else from the sync that loaded it; until the next version.

with

versions as (

    select
        *,
        md5(concat_ws(
            '|', first_name, last_name, user_type, email, is_archived,
            cast(custom_fields as varchar), modified_at
        )) as content_digest
    from {{ ref('stg_connecteam__user_versions') }}
    where user_id is not null and observed_at is not null

),

compared as (

    select
        *,
        lag(observed_at) over (partition by user_id order by observed_at) as previous_observed_at,
        lag(content_digest) over (partition by user_id order by observed_at)
            as previous_content_digest
    from versions

),

changed as (

    select * from compared
    where coalesce(previous_content_digest <> content_digest, true)

),

dated as (

    select
        *,
        coalesce(
            modified_at <= observed_at
            and (previous_observed_at is null or modified_at > previous_observed_at),
            false
        ) as is_dated_at_modified_at
    from changed

),

final as (

    select
        user_version_key,
        user_id,
        first_name,
        last_name,
        full_name,
        user_type,
        email,
        custom_fields,
        is_archived,
        modified_at,
        observed_at,
        case when is_dated_at_modified_at then modified_at else observed_at end as valid_from,
        case when is_dated_at_modified_at then 'modified_at' else 'sync' end as valid_from_source,
        row_number() over (partition by user_id order by observed_at) as version_number
    from dated

)

select
    *,
    lead(valid_from) over (partition by user_id order by observed_at) as valid_to,
    lead(valid_from) over (partition by user_id order by observed_at) is null as is_current
from final
