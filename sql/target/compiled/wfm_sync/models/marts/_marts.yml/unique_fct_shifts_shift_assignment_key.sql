
    
    

select
    shift_assignment_key as unique_field,
    count(*) as n_records

from "warehouse"."marts"."fct_shifts"
where shift_assignment_key is not null
group by shift_assignment_key
having count(*) > 1


