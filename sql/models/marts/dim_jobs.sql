-- One row per job or sub-job: every job the API lists (deleted ones flagged), and every job id a
-- shift or a punch names that the listing does not hold (is_inferred), so every fact's job finds
-- a name. job_label is the name charts and filters show: a sub-job as "<parent> › <title>",
-- "(deleted)" after a deleted job, "job <id> (not listed)" for an inferred one, the id appended
-- where two jobs would show the same label.

with

listed as (

    select * from {{ ref('stg_connecteam__jobs') }}

),

seen as (

    select job_id from {{ ref('int_shift_assignments__current') }}
    where job_id is not null
    union
    select job_id from {{ ref('int_time_activities__paid_time') }}
    where job_id is not null
    union
    select sub_job_id as job_id from {{ ref('int_time_activities__paid_time') }}
    where sub_job_id is not null

),

members as (

    select
        job_id,
        parent_job_id,
        job_title,
        job_code,
        is_sub_job,
        is_deleted,
        false as is_inferred
    from listed
    union all
    select
        seen.job_id,
        null as parent_job_id,
        null as job_title,
        null as job_code,
        null as is_sub_job,
        false as is_deleted,
        true as is_inferred
    from seen
    where not exists (
        select 1 from listed
        where listed.job_id = seen.job_id
    )

),

named as (

    select
        members.*,
        parents.job_title as parent_job_title,
        case
            when members.is_inferred then 'job ' || members.job_id || ' (not listed)'
            when members.job_title is null then null
            when members.parent_job_id is not null
                then
                    coalesce(parents.job_title, 'job ' || members.parent_job_id)
                    || ' › ' || members.job_title
            else members.job_title
        end
        || case when members.is_deleted then ' (deleted)' else '' end as job_name
    from members
    left join listed as parents on members.parent_job_id = parents.job_id

)

select
    job_id,
    parent_job_id,
    job_title,
    parent_job_title,
    job_code,
    is_sub_job,
    is_deleted,
    is_inferred,
    {{ display_label('job_name', 'job_id', 'job') }} as job_label
from named
