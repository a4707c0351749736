
  
  create view "warehouse"."staging"."stg_connecteam__user_custom_fields__dbt_tmp" as (
    with

users as (

    select
        user_id,
        custom_fields
    from "warehouse"."connecteam"."users"
    where custom_fields is not null

),

unnested as (

    select
        users.user_id,
        unnest(cast(users.custom_fields as json[])) as custom_field
    from users

),

renamed as (

    select
        user_id,
        cast(custom_field ->> 'customFieldId' as bigint) as custom_field_id,
        custom_field ->> 'name' as custom_field_name,
        custom_field ->> 'type' as custom_field_type,
        custom_field -> 'value' as value_json,
        case
            when json_type(custom_field -> 'value') in ('ARRAY', 'OBJECT')
                then cast(custom_field -> 'value' as varchar)
            else custom_field ->> 'value'
        end as value_text,
        cast(user_id as varchar) || '/' || (custom_field ->> 'customFieldId')
            as user_custom_field_key

    from unnested

)

select * from renamed
  );
