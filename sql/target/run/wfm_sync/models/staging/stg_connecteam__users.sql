
  
  create view "warehouse"."staging"."stg_connecteam__users__dbt_tmp" as (
    with

source as (

    select * from "warehouse"."connecteam"."users"

),

renamed as (

    select
        user_id,
        first_name,
        last_name,
        user_type,
        phone_number,
        custom_fields,
        email as email,
        kiosk_code as kiosk_code,
        trim(concat_ws(' ', first_name, last_name)) as full_name,
        coalesce(is_archived, false) as is_archived,
        to_timestamp(nullif(cast(created_at as bigint), 0)) as created_at,
        to_timestamp(nullif(cast(modified_at as bigint), 0)) as modified_at,
        to_timestamp(nullif(cast(archived_at as bigint), 0)) as archived_at,
        to_timestamp(nullif(cast(last_login as bigint), 0)) as last_login_at

    from source

)

select * from renamed
  );
