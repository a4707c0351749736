{#- A provider table as a staging model reads it: exactly the raw columns the model declares,
    typed, whatever the provider sent, and per row how many of its values could not be typed.

    The declaration is the model's YAML `meta` (models/staging/<source>/stg_<source>__<entity>.yml),
    read here and by tests and tools (pipelines/models.py: staging_declarations):

      meta:
        raw_table: connecteam.users            # <source>.<table>, the table this macro reads
        raw_columns:                           # every raw column the model reads
          user_id: {type: bigint, field: userId}
          first_name: {type: varchar, field: firstName}
        json_fields:                           # values read from inside a JSON raw column
          is_anonymous: {type: boolean, column: settings, path: isAnonymous}

    `type` is one of typed_value's types (macros/typing.sql); `varchar` is read as sent, every
    other type is a cast. `field` is the provider's field path the column holds (dots for
    nesting; null for columns our source adds). A json field's `path` is relative to its
    column's JSON; fields under an array (`[*]`) are one per item: the model reads them from the
    unnested item with json_field() and counts them with untypable_item_fields().

    - The table exists only once the provider returned a record for it: until then an empty
      relation of the declared columns.
    - A raw column exists only once some record had the field: a declared column that is missing
      is a typed null.
    - A value that cannot be typed becomes null (never an error); `untypable_value_count`
      counts, per row, the declared casts whose raw value was present (not null, not '') but
      could not be typed, including a value the sync kept aside in `untyped_values` because it
      did not fit the raw column (sources/connecteam/arrow_rows.py): it is typed from there,
      and counted when that fails too.
    - No other raw column is visible to the model: what it reads is what it declares. -#}
{% macro typed_source(source_name, table_name) -%}
    {%- set src = source(source_name, table_name) -%}
    {%- if not execute -%}
        (select 1 as parsing) as typed_source
    {%- else -%}
        {%- set declared = staging_declaration(source_name, table_name) -%}
        {%- set kinds = {} -%}
        {%- if model.resource_type == 'unit_test' -%}
            {#- the source is the test's given rows, typed like the declaration -#}
            {%- set found = src -%}
            {%- for name, spec in declared.raw_columns.items() -%}
                {%- do kinds.update({name: raw_kind(sql_type(spec.type))}) -%}
            {%- endfor -%}
        {%- else -%}
            {%- set found = adapter.get_relation(
                database=src.database, schema=src.schema, identifier=src.identifier
            ) -%}
            {%- if found is not none -%}
                {%- for column in adapter.get_columns_in_relation(found) -%}
                    {%- do kinds.update({column.name: raw_kind(column.dtype)}) -%}
                {%- endfor -%}
            {%- endif -%}
        {%- endif -%}
        {%- set aside = 'untyped_values' in kinds -%}
        {#- level 1: each raw column typed once, and whether a typed value was expected -#}
        {%- set columns = [] -%}
        {%- for name, spec in declared.raw_columns.items() -%}
            {%- set raw = adapter.quote(name) if name in kinds else none -%}
            {%- set kind = kinds.get(name, 'text') -%}
            {%- set kept = kept_value(name, spec) if aside else none -%}
            {%- if raw is none and kept is none -%}
                {%- set value, expects = 'cast(null as ' ~ sql_type(spec.type) ~ ')', 'false' -%}
            {%- elif raw is none or (kind == 'text' and spec.type != 'varchar') -%}
                {#- text typed once, from the raw column or else the value kept aside -#}
                {%- set texts = ([raw_text(raw, kind)] if raw is not none else [])
                    + ([kept] if kept is not none else []) -%}
                {%- set text = texts[0] if texts | length == 1
                    else 'coalesce(' ~ texts | join(', ') ~ ')' -%}
                {%- if raw is not none and kept is none -%}
                    {%- set value = typed_value(raw, spec.type, kind) -%}
                    {%- set expects = expects_value(raw, spec.type, kind) -%}
                {%- else -%}
                    {%- set value = typed_value(text, spec.type, 'text') -%}
                    {%- set expects = expects_value(text, spec.type, 'text') -%}
                {%- endif -%}
            {%- else -%}
                {%- set value = typed_value(raw, spec.type, kind) -%}
                {%- set expects = expects_value(raw, spec.type, kind) -%}
                {%- if kept is not none -%}
                    {%- set kept_typed = typed_value(kept, spec.type) -%}
                    {%- set kept_expects = expects_value(kept, spec.type) -%}
                    {%- set value = 'coalesce(' ~ value ~ ', ' ~ kept_typed ~ ')' -%}
                    {%- set expects = '(' ~ expects ~ ') or (' ~ kept_expects ~ ')' -%}
                {%- endif -%}
            {%- endif -%}
            {%- do columns.append((name, value, expects)) -%}
        {%- endfor -%}
        {#- level 2: values inside JSON columns, from the typed JSON -#}
        {%- set fields = [] -%}
        {%- for name, spec in declared.json_fields.items() if '[*]' not in spec.path -%}
            {%- set raw = json_value(adapter.quote(spec.column), spec.path, spec.type) -%}
            {%- set kind = value_kind(spec.type) -%}
            {%- do fields.append(
                (name, typed_value(raw, spec.type, kind), expects_value(raw, spec.type, kind))
            ) -%}
        {%- endfor -%}
        (
            select
            {%- for name, _, expects in columns + fields %}
                {{ adapter.quote(name) }},
            {%- endfor %}
                0
            {%- for name, _, expects in columns + fields if expects | trim != 'false' %}
                + (case when "__expects__{{ name }}" and {{ adapter.quote(name) }} is null
                    then 1 else 0 end)
            {%- endfor %} as untypable_value_count
            from (
                select
                    *
                {%- for name, value, expects in fields %},
                    {{ value }} as {{ adapter.quote(name) }}
                {%- if expects | trim != 'false' %},
                    {{ expects }} as "__expects__{{ name }}"
                {%- endif -%}
                {%- endfor %}
                from (
                    select
                    {%- for name, value, expects in columns %}
                        {{ value }} as {{ adapter.quote(name) }},
                    {%- if expects | trim != 'false' %}
                        {{ expects }} as "__expects__{{ name }}",
                    {%- endif -%}
                    {%- endfor %}
                        true as typed
                {%- if found is not none %}
                    from {{ src }}
                {%- else %}
                    where false
                {%- endif %}
                ) as typed_columns
            ) as typed_fields
        ) as typed_source
    {%- endif -%}
{%- endmacro %}

{#- The calling model's declaration (its YAML meta), checked: raw_columns present, raw_table
    naming the table the model reads, every json field's column declared. -#}
{% macro staging_declaration(source_name, table_name) -%}
    {%- set meta = model_meta() -%}
    {%- set where = model.name ~ ': meta' -%}
    {%- if meta.get('raw_table') != source_name ~ '.' ~ table_name -%}
        {{ exceptions.raise_compiler_error(
            where ~ '.raw_table must be ' ~ source_name ~ '.' ~ table_name
            ~ ' (the table the model reads), not ' ~ meta.get('raw_table')) }}
    {%- endif -%}
    {%- if not meta.get('raw_columns') -%}
        {{ exceptions.raise_compiler_error(where ~ '.raw_columns declares no column') }}
    {%- endif -%}
    {%- for name, spec in (meta.get('json_fields') or {}).items() -%}
        {%- if spec.column not in meta.raw_columns -%}
            {{ exceptions.raise_compiler_error(
                where ~ '.json_fields.' ~ name ~ ': column ' ~ spec.column ~ ' not declared') }}
        {%- endif -%}
    {%- endfor -%}
    {%- do return({
        'raw_columns': meta.raw_columns, 'json_fields': meta.get('json_fields') or {}
    }) -%}
{%- endmacro %}

{#- The value the sync kept aside for a raw column (`untyped_values` holds it under the
    record's own key: the provider's field name, or the row builder's column name). -#}
{% macro kept_value(name, spec) -%}
    {%- set keys = [name] -%}
    {%- if spec.field and '.' not in spec.field and spec.field != name -%}
        {%- do keys.append(spec.field) -%}
    {%- endif -%}
    {%- if keys | length == 1 -%}
        {{ json_text('untyped_values', name) }}
    {%- else -%}
        coalesce(
            {%- for key in keys -%}
                {{ json_text('untyped_values', key) }}{{ ", " if not loop.last }}
            {%- endfor -%}
        )
    {%- endif -%}
{%- endmacro %}

{#- A value inside JSON at a dotted path (`start.timezone`): text for scalar types, JSON for the
    type json (never raises: a path through a value of another shape is null). -#}
{% macro json_value(json_expression, path, data_type) -%}
    {%- if data_type == 'json' -%}
        {{ json_get(json_expression, path) }}
    {%- else -%}
        {{ json_text(json_expression, path) }}
    {%- endif -%}
{%- endmacro %}

{% macro value_kind(data_type) -%}
    {{- 'json' if data_type == 'json' else 'text' -}}
{%- endmacro %}

{#- One declared json field under an array, typed, read from `item` (the unnested element). -#}
{% macro json_field(name, item) -%}
    {%- if not execute -%}{{ return('null') }}{%- endif -%}
    {%- set spec = (model_meta().json_fields or {}).get(name) -%}
    {%- if spec is none -%}
        {{ exceptions.raise_compiler_error(
            model.name ~ ': meta.json_fields.' ~ name ~ ' not declared') }}
    {%- endif -%}
    {%- set value = json_value(item, spec.path.split('[*]')[-1], spec.type) -%}
    {{ typed_value(value, spec.type, value_kind(spec.type)) }}
{%- endmacro %}

{#- How many of the declared json fields of the items of array `under` (a path relative to its
    column, '' for the column itself) could not be typed, for `item`. -#}
{% macro untypable_item_fields(item, under='') -%}
    {%- if not execute -%}{{ return('0') }}{%- endif -%}
    {%- set checks = [] -%}
    {%- for name, spec in (model_meta().json_fields or {}).items()
        if spec.path.startswith(under ~ '[*]') and '[*]' not in spec.path.split('[*]', 1)[1] -%}
        {%- set value = json_value(item, spec.path.split('[*]')[-1], spec.type) -%}
        {%- do checks.append(untypable(value, spec.type, value_kind(spec.type))) -%}
    {%- endfor -%}
    {{ count_true(checks) }}
{%- endmacro %}

{#- `0 + (case when <check> then 1 else 0 end) + ...`; checks that are constantly false are
    left out. -#}
{% macro count_true(checks) -%}
    0
    {%- for check in checks if check | trim != 'false' %}
        + (case when {{ check }} then 1 else 0 end)
    {%- endfor -%}
{%- endmacro %}

{#- The calling model's `config.meta`. A unit test renders the model as a node of its own that
    carries neither the model's config nor the graph: a unit test of a staging model passes the
    model's declaration as the var `unit_test_meta` (a YAML alias of the model's meta). -#}
{% macro model_meta() -%}
    {%- if model.resource_type == 'unit_test' -%}
        {%- do return(var('unit_test_meta', {})) -%}
    {%- endif -%}
    {%- do return(model.config.meta or {}) -%}
{%- endmacro %}
