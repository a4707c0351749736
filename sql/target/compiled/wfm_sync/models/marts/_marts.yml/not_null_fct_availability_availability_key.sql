
    
    



select availability_key
from "warehouse"."marts"."fct_availability"
where availability_key is null


