
    
    



select user_custom_field_key
from "warehouse"."staging"."stg_connecteam__user_custom_fields"
where user_custom_field_key is null


