
    
    



select local_date
from "warehouse"."marts"."fct_daily_hours"
where local_date is null


