-- One row per job and sub-job (sub-jobs carry parent_job_id), deleted ones included.
{% set columns = {
    'job_id': 'varchar', 'parent_job_id': 'varchar', 'title': 'varchar', 'code': 'varchar',
    'is_deleted': 'boolean'
} -%}

with

source as (

    select * from {{ source_or_empty('connecteam', 'jobs', columns) }}

),

renamed as (

    select
        untypable_value_count,
        job_id,
        parent_job_id,
        title as job_title,
        code as job_code,
        coalesce(is_deleted, false) as is_deleted,
        parent_job_id is not null as is_sub_job

    from source

)

select * from renamed
