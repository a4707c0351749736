
    
    



select shift_assignment_key
from "warehouse"."marts"."fct_shifts"
where shift_assignment_key is null


