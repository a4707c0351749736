-- Per scheduler, the window the last sync pulled and when: the API's rows of shifts starting in
-- [window_from, window_to) are as of pulled_at.

with

source as (

    select * from {{ typed_source('connecteam', 'shift_coverage') }}

),

renamed as (

    select
        scheduler_id,
        window_from,
        window_to,
        pulled_at,
        untypable_value_count

    from source

)

select * from renamed
