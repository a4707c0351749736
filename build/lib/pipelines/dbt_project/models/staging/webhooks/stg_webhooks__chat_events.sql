-- One row per chat webhook event: message_created/updated/deleted and
-- conversation_created/updated/deleted, split into entity and action. `data` is free-form in
-- the spec (ChatWebhookResponse); the fields read are the emulator's reading of it
-- (conversationId, messageId, userId, text). `action` is a SQL keyword kept as the column's name
-- (noqa: RF04 below).
--
-- Message text is personal content: it is read only when the dbt variable chat_message_text
-- is true (default false, `--vars '{chat_message_text: true}'`). Otherwise message_text is
-- null and this model's SQL never reads data.text, so no message text reaches any model
-- downstream. data.text is therefore not declared in the YAML meta (typed_source would read
-- every declared field); it is text as sent (varchar, never untypable).

{%- set allow_text = var('chat_message_text', false) | string | lower in ('true', '1', 'yes') %}

with

source as (

    select * from {{ typed_source('webhooks', 'events') }}
    where family = 'chat'

),

renamed as (

    select
        event_key,
        event_type,
        event_timestamp as event_at,
        received_at,
        {{ event_time_implausible() }} as is_event_time_implausible,
        {%- set is_chat_type = matches_fully(
            'event_type', '(message|conversation)_(created|updated|deleted)'
        ) %}
        case when {{ is_chat_type }} then split_part(event_type, '_', 1) end as entity,
        case
            when {{ is_chat_type }} then split_part(event_type, '_', 2)
        end as action,  -- noqa: RF04
        conversation_id,
        message_id,
        user_id,
        {% if allow_text -%}
            {{ json_text('payload', 'data.text') }}
        {%- else -%}
            cast(null as varchar)
        {%- endif %} as message_text,
        untypable_value_count

    from source

)

select * from renamed
