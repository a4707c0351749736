-- One row per job and sub-job (sub-jobs carry parent_job_id), deleted ones included: flagged
-- by the provider, or found gone from its listing by the sync (deleted_at).

with

source as (

    select * from {{ typed_source('connecteam', 'jobs') }}

),

renamed as (

    select
        job_id,
        parent_job_id,
        title as job_title,
        code as job_code,
        color,
        description,
        use_parent_data,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted,
        parent_job_id is not null as is_sub_job

    from source

)

select * from renamed
