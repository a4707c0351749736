
    
    



select shift_assignment_key
from "warehouse"."staging"."stg_connecteam__shifts"
where shift_assignment_key is null


