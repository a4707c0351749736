"""Field names come from the provider's spec, never from our emulator.

Every ``stg_connecteam__*`` model reads its raw table through the ``typed_source`` macro, which
reads exactly the raw columns the model declares in its YAML ``meta``
(``staging/<source>/stg_<source>__<entity>.yml``;
:func:`pipelines.staging_declarations.staging_declarations`). Two checks:

* the **declarations**: each declared raw column holds a provider field the spec's schema of
  the endpoint's record has (dlt's snake_case of it for tables loaded as the provider sends
  them; for tables the source builds with a row builder, the column the builder fills from
  that field), or is one our source adds (:data:`SOURCE_ADDED`, each with its reason); values
  read inside a JSON column follow the spec's schema of that column;
* the **compiled SQL**: compiled against raw tables that hold every declared column and more,
  each model reads from its raw table only declared columns (parsed with sqlglot), never ``*``.

The beta ``user_documents`` endpoint is absent from the spec: its model may read only the names
of :data:`UNPUBLISHED` (each with its source), and every one of them may be absent.
Negative controls show both checks fail on a name the spec does not have.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
import sqlglot
import yaml  # type: ignore[import-untyped, unused-ignore]
from conftest import SPEC_FILE
from dlt.common.normalizers.naming.snake_case import NamingConvention
from sqlglot import exp

from pipelines.dbt_runner import run_dbt
from pipelines.staging_declarations import DeclaredColumn, StagingDeclaration, staging_declarations
from sources.configuration import resolve as resolve_project
from sources.connecteam.registry import STREAMS as ENDPOINTS
from sources.connecteam.resources import (
    availability,
    forms,
    jobs,
    manual_breaks,
    pay,
    shift_layers,
    tasks,
    time_clock,
    time_off,
)

ROOT = Path(__file__).resolve().parents[2]
SPEC = json.loads(SPEC_FILE.read_text())
STAGING = ROOT / "sql" / "models" / "staging"
SNAKE = NamingConvention()

SOURCE_ADDED: dict[str, str] = {
    "*._dlt_load_id": "dlt: the load package that wrote the row",
    "*._dlt_id": "dlt: the row's own id",
    "*.content_hash": "the source: a digest of the provider's record, for change detection",
    "*.is_deleted": "the source: tombstone of a row the provider stopped returning",
    "*.deleted_at": "the source: when the tombstone was written (epoch seconds)",
    "*.untyped_values": "the source: values kept aside that did not fit their column's type",
    "shifts.scheduler_id": "the scheduler the rows were listed under (path parameter)",
    "shifts.shift_id": "the base shift id, split from a V1 slot id",
    "shifts.user_id": "the single assignee of a V1 row (assignedUserIds[0])",
    "time_activities.time_clock_id": "the time clock listed (path parameter)",
    "time_activities.user_id": "the userId of the user group the activity was listed in",
    "time_activities.activity_type": "the list the activity came in (shifts, manualBreaks, ...)",
    "timesheets.id": "the source's key: time clock, user and date",
    "timesheets.time_clock_id": "the time clock listed (path parameter)",
    "timesheets.user_id": "the userId of the user group the day was listed in",
    "tasks.task_board_id": "the task board listed (path parameter)",
    "shift_coverage.coverage_key": "written by the source (scheduling.SHIFT_COVERAGE_HINTS)",
    "shift_coverage.scheduler_id": "written by the source (scheduling.SHIFT_COVERAGE_HINTS)",
    "shift_coverage.window_from": "written by the source (scheduling.SHIFT_COVERAGE_HINTS)",
    "shift_coverage.window_to": "written by the source (scheduling.SHIFT_COVERAGE_HINTS)",
    "shift_coverage.pulled_at": "written by the source (scheduling.SHIFT_COVERAGE_HINTS)",
    "task_coverage.task_board_id": "written by the source (tasks.TASK_COVERAGE_HINTS)",
    "task_coverage.pulled_at": "written by the source (tasks.TASK_COVERAGE_HINTS)",
    "time_activity_coverage.time_clock_id": "written by the source (time_clock.COVERAGE_HINTS)",
    "time_activity_coverage.covered_from": "written by the source (time_clock.COVERAGE_HINTS)",
    "time_activity_coverage.window_from": "written by the source (time_clock.COVERAGE_HINTS)",
    "time_activity_coverage.pulled_at": "written by the source (time_clock.COVERAGE_HINTS)",
    "pay_rates.pay_rate_key": "the source's key: user, effective date and rate",
    "daily_sales.daily_sales_key": "the source's key: location and date",
    "pay_rates.rate_kind": "which rate the row holds: default, resource or sub_resource",
    "pay_rates.resource_id": "resourcesRates[].resourceId of a resource or sub-resource row",
    "pay_rates.sub_resource_id": "subResourcesRates[].subResourceId of a sub-resource row",
    "pay_rates.rate": "defaultRate, resourcesRates[].rate or subResourcesRates[].rate by kind",
    "pay_rates.is_using_default_rate": "resourcesRates[].isUsingDefaultRate of a resource row",
    "pay_rates.is_using_parent_rate": "subResourcesRates[].isUsingParentRate of a sub row",
    "time_off_balances.balance_key": "the source's key: policy type, policy, user, as-of date",
    "time_off_balances.policy_type_id": "the policy type listed (path parameter)",
    "time_off_balances.as_of_date": "the UTC day of the sync that read the balance",
    "time_off_balances.synced_at": "when the sync read the balance (epoch seconds)",
    "form_submissions.synced_at": "when the sync read the submission's version (epoch seconds)",
    "scheduler_unavailabilities.scheduler_id": "the scheduler listed (path parameter)",
    "manual_breaks.manual_break_key": "the source's key: time clock and policy id",
    "manual_breaks.time_clock_id": "the time clock listed (path parameter)",
    "shift_layers.shift_layer_key": "the source's key: scheduler and layer id",
    "shift_layers.scheduler_id": "the scheduler listed (path parameter)",
    "shift_layer_values.shift_layer_value_key": "the source's key: scheduler, layer and value id",
    "shift_layer_values.scheduler_id": "the scheduler listed (path parameter)",
    "shift_layer_values.layer_id": "the shift layer listed (path parameter)",
    "shift_custom_fields.shift_custom_field_key": "the source's key: scheduler and field id",
    "shift_custom_fields.scheduler_id": "the scheduler listed (path parameter)",
    "user_custom_field_options.user_custom_field_option_key": "the source's key: field, option",
    "user_custom_field_options.custom_field_id": "the custom field listed (path parameter)",
    "*.observed_at": "the source: when the sync that loaded a version ran (epoch seconds)",
    "*.version_key": "the source: a version's key, the record's key and observed_at",
}
"""Columns our source (or dlt) writes beside the provider's fields: ``<table>.<column>``
(``*`` for every table) and why. A declared column without a provider field must be here, or
be one the registry declares (:func:`registry_added`)."""


def registry_added() -> dict[str, str]:
    """The columns a stream's declaration in the registry says the source writes: each path
    parameter (``{packId}`` -> ``pack_id``: the parent listed) and each key column that is not
    the snake_case of a provider id field (``onboarding_assignment_key``: the source's key)."""
    out: dict[str, str] = {}
    for stream in ENDPOINTS.values():
        for param in re.findall(r"\{(\w+)\}", stream.path):
            out[f"{stream.name}.{SNAKE.normalize_identifier(param)}"] = "a path parameter"
        provider = {SNAKE.normalize_identifier(f.split(".")[-1]) for f in stream.primary_key}
        for column in stream.key:
            if column not in provider:
                out[f"{stream.name}.{column}"] = "the source's key (the registry's Stream.key)"
    return out


SOURCE_ADDED.update({k: v for k, v in registry_added().items() if k not in SOURCE_ADDED})

UNPUBLISHED: dict[str, dict[str, str]] = {
    "user_documents": {
        "id": "the record id the source merges on (settings.USER_DOCUMENTS.primary_key)",
        "userId": "service-interface.md: a user document is a user's (PUT .../users/{userId}/...)",
        "documentId": "service-interface.md: ... against a document (path parameter documentId)",
        "status": "service-interface.md: ApiDocumentStatus, the statuses of a user document",
        "documentType": "service-interface.md: ApiDocumentType",
        "packId": "service-interface.md: permissions are held on the document's pack",
        "documentName": "the emulator's documented reading (emulator/app.py); may be absent",
        "createdAt": "the emulator's documented reading (emulator/app.py); may be absent",
        "updatedAt": "the emulator's documented reading (emulator/app.py); may be absent",
    },
}
"""Fields a model may read from an endpoint the spec does not publish, and their source."""

Builder = Callable[[dict[str, Any]], dict[str, Any]]
BUILT: dict[str, tuple[Builder, list[str]]] = {
    "time_activities": (
        lambda r: time_clock.activity_row(1, 2, "shifts", r),
        ["ShiftActivityResponse", "ManualBreakActivityResponse", "TimeOffActivityResponse"],
    ),
    "timesheets": (lambda r: time_clock.timesheet_row(1, 2, r), ["DailyRecordResponse"]),
    "form_submissions": (forms.submission_row, ["FormSubmissionResponse"]),
    "jobs": (lambda r: jobs.job_row(r, None), ["BaseJobResponse"]),
    "time_off_requests": (time_off.time_off_row, ["TimeOffRequestCreateResponse"]),
    "tasks": (lambda r: tasks.task_row(1, r), ["ResponseTask"]),
    "pay_rates": (lambda r: pay.pay_rate_rows(r)[0], ["PayRateByUserResponse"]),
    "time_off_policy_types": (time_off.policy_type_row, ["TimeOffPolicyType"]),
    "time_off_balances": (
        lambda r: time_off.balance_row("pt", r, "2026-11-20", 0),
        ["TimeOffUserBalance"],
    ),
    "scheduler_unavailabilities": (
        lambda r: availability.unavailability_row(1, r),
        ["SchedulerUnavailabilityResponse"],
    ),
    "manual_breaks": (lambda r: manual_breaks.manual_break_row(1, r), ["ManualBreakResponse"]),
    "shift_layers": (lambda r: shift_layers.layer_row(1, r), ["SchedulerShiftLayerOutput"]),
    "shift_layer_values": (
        lambda r: shift_layers.layer_value_row(1, "l", r),
        ["SchedulerShiftLayerValueOutput"],
    ),
    "shift_custom_fields": (
        lambda r: shift_layers.custom_field_row(1, r),
        ["DropdownShiftCustomFieldSettingsResponse", "ShiftCustomFieldSettingsResponse"],
    ),
    "user_custom_field_options": (
        lambda r: shift_layers.option_row(1, r),
        ["DropdownCustomFieldOptionResponse"],
    ),
}
"""Tables the source builds with a row builder from one record: the builder and the spec
schemas of the records it reads (the others are loaded as the provider sends them, named by
dlt's snake_case)."""


# -- the spec ---------------------------------------------------------------------------------


def resolve(node: Any) -> dict[str, Any]:
    """``node`` with its ``$ref`` followed."""
    while isinstance(node, dict) and "$ref" in node:
        node = SPEC["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    return node if isinstance(node, dict) else {}


def branches(schema: Any) -> Iterator[dict[str, Any]]:
    """``schema`` and its ``allOf``/``anyOf``/``oneOf`` branches, resolved."""
    schema = resolve(schema)
    yield schema
    for keyword in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(keyword) or []:
            yield from branches(branch)


def properties(schema: Any) -> dict[str, Any]:
    """The properties of an object schema, over all its branches."""
    found: dict[str, Any] = {}
    for branch in branches(schema):
        found.update(branch.get("properties") or {})
    return found


def items(schema: Any) -> dict[str, Any]:
    """The schema of an array's items (``{}`` when ``schema`` is no array)."""
    for branch in branches(schema):
        if "items" in branch:
            return resolve(branch["items"])
    return {}


def has_path(schema: Any, path: str) -> bool:
    """Whether the dotted ``path`` (``[*]`` for array items) is in ``schema``."""
    for part in path.split("."):
        is_list = part.endswith("[*]")
        name = part.removesuffix("[*]")
        if name:
            schema = properties(schema).get(name)
            if schema is None:
                return False
        if is_list:
            schema = items(schema)
            if not schema:
                return False
    return True


def record_schema(table: str) -> dict[str, Any]:
    """The spec's schema of one record of ``table``'s endpoint."""
    endpoint = ENDPOINTS[table]
    answer = SPEC["paths"][endpoint.path]["get"]["responses"]["200"]["content"]
    data = properties(properties(answer["application/json"]["schema"])["data"])
    return items(data[endpoint.data_key])


def sentinel_record(schema: Any, prefix: str = "", depth: int = 0) -> dict[str, Any]:
    """A record of ``schema`` whose every leaf holds its own path (``"§start.timezone"``)."""
    record: dict[str, Any] = {}
    for name, prop in properties(schema).items():
        path = prefix + name
        nested = properties(prop) if depth < 4 and not items(prop) else {}
        record[name] = sentinel_record(prop, path + ".", depth + 1) if nested else f"§{path}"
    return record


def without(record: dict[str, Any], path: str, value: Any = None) -> dict[str, Any]:
    """A deep copy of ``record`` with ``path`` set to ``value`` (removed when ``None``)."""
    copy = json.loads(json.dumps(record))
    *parents, last = path.split(".")
    node = copy
    for part in parents:
        node = node[part]
    if value is None:
        node.pop(last, None)
    else:
        node[last] = value
    return copy


# -- the declarations ---------------------------------------------------------------------------


def allowed_without_field(table: str, column: str) -> bool:
    """Whether ``column`` of ``table`` is one our source (or dlt) adds."""
    return f"{table}.{column}" in SOURCE_ADDED or f"*.{column}" in SOURCE_ADDED


def builder_fills(table: str, column: str, field: str) -> bool:
    """Whether the row builder of ``table`` fills ``column`` from the record's ``field``: the
    column changes when only that field does."""
    builder, schemas = BUILT[table]
    for name in schemas:
        record = sentinel_record(SPEC["components"]["schemas"][name])
        if not has_path(SPEC["components"]["schemas"][name], field):
            continue
        rows = [builder(record), builder(without(record, field, "§other"))]
        with contextlib.suppress(KeyError, TypeError):  # a field the builder requires
            rows.append(builder(without(record, field)))
        if any(row.get(column) != rows[0].get(column) for row in rows[1:]):
            return True
    return False


def record_schemas(table: str) -> list[dict[str, Any]]:
    """The spec's schemas of the records ``table``'s rows are made from."""
    if table in BUILT:
        return [SPEC["components"]["schemas"][name] for name in BUILT[table][1]]
    return [record_schema(table)]


VERSIONS = {"user_versions": "users", "shift_versions": "shifts"}
"""Append-only version tables and the table whose rows (and provider fields) they hold."""


def column_problems(table: str, column: DeclaredColumn) -> str:
    """Why ``column`` (declared for raw ``table``) is not a field the provider has; '' if it is."""
    table = VERSIONS.get(table, table)
    where = f"{table}.{column.name}"
    if column.name != column.column:  # a value inside a JSON raw column
        if column.field is None or not ENDPOINTS[table].in_spec:
            return ""
        return "" if any(has_path(s, column.field) for s in record_schemas(table)) else (
            f"{where}: {column.field} is not in the spec's record schema"
        )  # fmt: skip
    if column.field is None:
        return "" if allowed_without_field(table, column.name) else (
            f"{where}: no provider field and not a column the source adds (SOURCE_ADDED)"
        )  # fmt: skip
    if table not in ENDPOINTS:
        return f"{where}: {table} is written by the source, it holds no provider field"
    if not ENDPOINTS[table].in_spec:
        known = UNPUBLISHED.get(table, {})
        if column.field not in known:
            return f"{where}: {column.field} is not a known field of the unpublished endpoint"
        return "" if SNAKE.normalize_identifier(column.field) == column.name else (
            f"{where}: dlt names {column.field} {SNAKE.normalize_identifier(column.field)}"
        )  # fmt: skip
    if table in BUILT:
        if not any(has_path(s, column.field) for s in record_schemas(table)):
            return f"{where}: {column.field} is not in the spec's record schema"
        return "" if builder_fills(table, column.name, column.field) else (
            f"{where}: the row builder does not fill it from {column.field}"
        )  # fmt: skip
    if "." in column.field or column.field not in properties(record_schema(table)):
        return f"{where}: {column.field} is not a field of the spec's record schema"
    expected = SNAKE.normalize_identifier(column.field)
    return "" if expected == column.name else f"{where}: dlt names {column.field} {expected}"


def declaration_problems(declaration: StagingDeclaration) -> list[str]:
    """Every declared name of ``declaration`` the provider's spec (or our source) lacks."""
    dataset, _, table = declaration.raw_table.partition(".")
    if dataset != "connecteam":
        return [f"{declaration.model} reads {declaration.raw_table}, not a connecteam table"]
    found = [column_problems(table, c) for c in declaration.columns]
    return [f"{declaration.model}: {p}" for p in found if p]


# -- the compiled SQL ---------------------------------------------------------------------------


def raw_reads(sql: str, raw_table: str) -> set[str]:
    """The columns ``sql`` reads from ``raw_table`` (``<dataset>.<table>``); ``*`` for a star.

    Every ``SELECT`` whose ``FROM`` is the raw table is searched, nested subqueries included;
    a column qualified with another table's name (a subquery's own table) is not the raw
    table's.
    """
    dataset, table = raw_table.split(".")
    reads: set[str] = set()
    for select in sqlglot.parse_one(sql, read="duckdb").find_all(exp.Select):
        source = select.args.get("from_") or select.args.get("from")  # by sqlglot version
        target = source.this if source is not None else None
        if not isinstance(target, exp.Table):
            continue
        if (target.db, target.name) != (dataset, table):
            continue
        names = {target.name, target.alias_or_name}
        for node in select.find_all(exp.Column, exp.Star):
            if isinstance(node, exp.Star) and node.find_ancestor(exp.Select) is select:
                reads.add("*")
            elif isinstance(node, exp.Column):
                if node.is_star:
                    reads.add("*")
                elif not node.table or node.table in names:
                    reads.add(node.name)
    return reads


def compiled_problems(model: str, sql: str, declaration: StagingDeclaration) -> list[str]:
    """Raw columns ``sql`` reads that ``declaration`` does not declare."""
    allowed = set(declaration.raw_columns) | {"untyped_values"}
    return [
        f"{model} reads {declaration.raw_table}.{name}: not declared"
        + (" (a model reads the columns it declares, never *)" if name == "*" else "")
        for name in sorted(raw_reads(sql, declaration.raw_table) - allowed)
    ]


DECLARATIONS = {m: d for m, d in staging_declarations().items() if m.startswith("stg_connecteam__")}
DECOY = "not_a_provider_field"
"""A raw column every compiled-against table has and no model may read."""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Compiled SQL of every model, the staging ones against raw tables holding every declared
    column, ``untyped_values``, dlt's columns and a decoy."""
    folder = tmp_path_factory.mktemp("compiled")
    warehouse = folder / "warehouse.duckdb"
    tables: dict[str, set[str]] = {}
    for declaration in staging_declarations().values():
        tables.setdefault(declaration.raw_table, set()).update(declaration.raw_columns)
    with duckdb.connect(str(warehouse)) as con:
        for table, columns in tables.items():
            con.execute(f"create schema if not exists {table.split('.')[0]}")
            names = sorted(columns | {"untyped_values", "_dlt_load_id", "_dlt_id", DECOY})
            con.execute(f"create table {table} ({', '.join(f'{c} varchar' for c in names)})")
    paths = ["--target-path", str(folder / "target"), "--log-path", str(folder / "logs")]
    result = run_dbt(["compile", *paths], warehouse, project=resolve_project())
    assert result.success, result.exception
    manifest = json.loads((folder / "target" / "manifest.json").read_text())
    return {
        node["name"]: node["compiled_code"]
        for node in manifest["nodes"].values()
        if node["resource_type"] == "model" and node.get("compiled_code")
    }


@pytest.mark.parametrize("model", sorted(DECLARATIONS))
def test_staging_declarations_name_only_fields_the_spec_has(model: str) -> None:
    assert declaration_problems(DECLARATIONS[model]) == []


@pytest.mark.parametrize("model", sorted(DECLARATIONS))
def test_staging_models_read_only_their_declared_raw_columns(
    model: str, compiled: dict[str, str]
) -> None:
    declaration = DECLARATIONS[model]
    reads = raw_reads(compiled[model], declaration.raw_table)
    assert reads, f"{model} reads nothing from {declaration.raw_table}: the parse went wrong"
    assert compiled_problems(model, compiled[model], declaration) == []
    assert DECOY not in reads


def test_every_staging_model_is_declared_and_only_staging_reads_raw_tables(
    compiled: dict[str, str],
) -> None:
    models = {p.stem for p in STAGING.glob("*/stg_*.sql")}
    assert models == set(staging_declarations())
    for name, sql in compiled.items():
        if not name.startswith("stg_"):
            assert not any(raw_reads(sql, d.raw_table) for d in staging_declarations().values())


@pytest.mark.parametrize("table", sorted(BUILT))
def test_row_builders_read_only_fields_the_spec_has(table: str) -> None:
    builder, schemas = BUILT[table]
    seen: set[str] = set()
    builder(Reads(seen))
    unknown = {f for f in seen if not any(has_path(SPEC["components"]["schemas"][n], f)
                                          for n in schemas)}  # fmt: skip
    assert sorted(unknown) == []


class Reads(dict[str, Any]):
    """A record that notes every field a row builder reads (nested reads as ``a.b``)."""

    def __init__(self, seen: set[str], prefix: str = "") -> None:
        super().__init__()
        self.seen, self.prefix = seen, prefix

    def get(self, key: str, default: Any = None) -> Any:
        self.seen.add(self.prefix + key)
        return Reads(self.seen, f"{self.prefix}{key}.")

    def __getitem__(self, key: str) -> Any:
        self.seen.add(self.prefix + key)
        return "1"

    def __bool__(self) -> bool:
        return True


def test_the_unpublished_endpoint_s_model_says_so() -> None:
    path = STAGING / "connecteam" / "stg_connecteam__user_documents.yml"
    (documents,) = yaml.safe_load(path.read_text())["models"]
    assert "unpublished" in documents["description"]
    assert not ENDPOINTS["user_documents"].in_spec


# -- negative controls ----------------------------------------------------------------------------


def declared(model: str, raw_table: str, *columns: DeclaredColumn) -> StagingDeclaration:
    """A declaration built in memory (negative controls)."""
    return StagingDeclaration(model, raw_table, tuple(columns))


def test_a_declaration_naming_a_field_only_the_emulator_has_fails_the_check() -> None:
    fake = declared(
        "stg_connecteam__fake", "connecteam.users",
        DeclaredColumn("user_id", "bigint", "user_id", "userId"),
        DeclaredColumn("document_name", "varchar", "document_name", "documentName"),
        DeclaredColumn("added", "varchar", "added", None),
        DeclaredColumn("bad_path", "bigint", "custom_fields", "customFields[*].nope"),
    )  # fmt: skip
    assert declaration_problems(fake) == [
        "stg_connecteam__fake: users.document_name: documentName is not a field of the spec's "
        "record schema",
        "stg_connecteam__fake: users.added: no provider field and not a column the source adds "
        "(SOURCE_ADDED)",
        "stg_connecteam__fake: users.bad_path: customFields[*].nope is not in the spec's "
        "record schema",
    ]
    built = declared(
        "stg_connecteam__fake", "connecteam.time_activities",
        DeclaredColumn("start_timezone", "timezone", "start_timezone", "start.timezone"),
        DeclaredColumn("clock_in_at", "epoch", "clock_in_at", "clockInAt"),
        DeclaredColumn("end_timezone", "timezone", "end_timezone", "start.timezone"),
    )  # fmt: skip
    assert declaration_problems(built) == [
        "stg_connecteam__fake: time_activities.clock_in_at: clockInAt is not in the spec's "
        "record schema",
        "stg_connecteam__fake: time_activities.end_timezone: the row builder does not fill it "
        "from start.timezone",
    ]
    beta = declared(
        "stg_connecteam__fake", "connecteam.user_documents",
        DeclaredColumn("file_url", "varchar", "file_url", "fileUrl"),
    )  # fmt: skip
    assert declaration_problems(beta) == [
        "stg_connecteam__fake: user_documents.file_url: fileUrl is not a known field of the "
        "unpublished endpoint"
    ]


def test_compiled_sql_reading_an_undeclared_or_every_column_fails_the_check() -> None:
    declaration = declared(
        "stg_connecteam__fake", "connecteam.users",
        DeclaredColumn("user_id", "bigint", "user_id", "userId"),
    )  # fmt: skip
    reads_more = (
        'with source as (select try_cast("user_id" as bigint) as user_id, "document_name" '
        'from "warehouse"."connecteam"."users") select * from source'
    )
    assert compiled_problems("stg_connecteam__fake", reads_more, declaration) == [
        "stg_connecteam__fake reads connecteam.users.document_name: not declared"
    ]
    star = 'select * from (select * from "warehouse"."connecteam"."users") as s'
    assert compiled_problems("stg_connecteam__fake", star, declaration) == [
        "stg_connecteam__fake reads connecteam.users.*: not declared (a model reads the columns "
        "it declares, never *)"
    ]
    qualified = (
        'select u."user_id", u.document_name, (select min(tz.name) from pg_timezone_names() as '
        "tz where tz.name = u.timezone) from connecteam.users as u"
    )
    assert raw_reads(qualified, "connecteam.users") == {"user_id", "document_name", "timezone"}
