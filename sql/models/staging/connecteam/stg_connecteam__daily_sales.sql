-- One row per location and day with stored sales. The provider omits a day without data (no
-- row, not zero); total_sales is null on a day without transactions, projected_sales when no
-- projection was set. A row the provider stopped returning is kept, flagged is_deleted.

with

source as (

    select * from {{ typed_source('connecteam', 'daily_sales') }}

),

renamed as (

    select
        daily_sales_key,
        location_id,
        date as sales_date,
        total_sales,
        projected_sales,
        deleted_at,
        untypable_value_count,
        coalesce(is_deleted, false) as is_deleted

    from source

)

select * from renamed
