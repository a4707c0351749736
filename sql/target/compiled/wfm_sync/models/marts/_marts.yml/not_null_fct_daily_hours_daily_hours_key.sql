
    
    



select daily_hours_key
from "warehouse"."marts"."fct_daily_hours"
where daily_hours_key is null


