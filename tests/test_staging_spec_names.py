"""Field names come from the provider's spec, never from our emulator.

Each ``stg_connecteam__*`` model declares the raw columns it reads (the ``columns`` it gives the
``source_or_empty`` macro). For tables the sync loads as the provider sends them, every declared
column must be dlt's snake_case of a field of the endpoint's record schema in the spec (nested
objects flattened with ``_``), or one the source adds. For tables the source builds from
flattened records (time activities, timesheets, ...), every declared column must be one the row
builder writes, and every field the row builder reads must be in the spec. Beta endpoints the
spec does not publish (``user_documents``) are exempt: their models tolerate any field absent.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sources.connecteam import operations
from sources.connecteam.settings import ENDPOINTS

ROOT = Path(__file__).resolve().parents[1]
SPEC = json.loads((ROOT / "tests" / "data" / "connecteam-openapi.json").read_text())
STAGING = ROOT / "sql" / "models" / "staging"

SOURCE_ADDED = {
    "scheduler_id": "shifts: the scheduler the rows were listed under (path parameter)",
    "shift_id": "shifts: the base shift id, split from a V1 slot id",
    "user_id": "shifts: the single assignee of a V1 row",
    "content_hash": "a digest of the provider's record, for change detection",
    "is_deleted": "tombstones of rows the provider stopped returning",
    "deleted_at": "when the tombstone was written (epoch seconds)",
    "untyped_values": "values kept aside because they did not fit their column's type",
}
"""Columns the source writes beside the provider's fields, each with its reason."""

BUILT: dict[str, tuple[Callable[..., dict[str, Any]], tuple[Any, ...], list[str]]] = {
    "time_activities": (
        lambda r: operations.activity_row(1, 2, "shifts", r), (),
        ["ShiftActivityResponse", "ManualBreakActivityResponse", "TimeOffActivityResponse"],
    ),
    "timesheets": (lambda r: operations.timesheet_row(1, 2, r), (), ["DailyRecordResponse"]),
    "form_submissions": (operations._submission_row, (), ["FormSubmissionResponse"]),
    "jobs": (lambda r: operations._job_row(r, None), (), ["BaseJobResponse"]),
    "time_off_requests": (operations._time_off_row, (), ["TimeOffRequestCreateResponse"]),
    "tasks": (lambda r: operations._task_row(1, r), (), ["ResponseTask"]),
}  # fmt: skip
"""Tables the source builds with a row builder: the builder and the spec schemas of the records
it reads."""
BUILT_COLUMNS_ADDED = {
    "time_activities": {"time_clock_id", "user_id", "activity_type"},
    "timesheets": {"time_clock_id", "user_id"},
    "tasks": {"task_board_id"},
    "jobs": {"parent_job_id"},
}
"""Columns a row builder writes from the parent it was listed under, not from the record."""


def snake(name: str) -> str:
    """dlt's snake_case of a provider field name (``userId`` -> ``user_id``)."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def resolve(node: Any, depth: int = 0) -> Any:
    if isinstance(node, dict) and "$ref" in node:
        return resolve(SPEC["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]], depth + 1)
    return node


def properties(schema: Any, depth: int = 0) -> dict[str, Any]:
    """Every property of ``schema`` and of its ``allOf``/``anyOf``/``oneOf`` branches."""
    schema = resolve(schema)
    found: dict[str, Any] = dict(schema.get("properties") or {})
    if depth < 4:
        for keyword in ("allOf", "anyOf", "oneOf"):
            for branch in schema.get(keyword) or []:
                found.update(properties(branch, depth + 1))
        if "items" in schema:
            found.update(properties(schema["items"], depth + 1))
    return found


def flattened(schema: Any, prefix: str = "", depth: int = 0) -> set[str]:
    """snake_case names of every field, nested objects joined with ``_``."""
    names = set()
    for name, prop in properties(schema).items():
        column = prefix + snake(name)
        names.add(column)
        if depth < 3 and properties(prop):
            names |= flattened(prop, column + "_", depth + 1)
    return names


def record_schema(stream: str) -> Any:
    """The spec's schema of one record of ``stream``'s endpoint."""
    endpoint = ENDPOINTS[stream]
    answer = SPEC["paths"][endpoint.path]["get"]["responses"]["200"]["content"]
    data = properties(properties(answer["application/json"]["schema"])["data"])
    return resolve(data[endpoint.data_key])["items"]


def declarations(sql: str) -> tuple[str, set[str]]:
    """The raw table a staging model reads and the columns it declares."""
    match = re.search(r"\{%-?\s*set columns = (\{.*?\})\s*-?%\}", sql, re.S)
    table = re.search(r"source_or_empty\('connecteam', '(\w+)'", sql)
    assert match and table, "a staging model reads its source through source_or_empty"
    return table.group(1), set(ast.literal_eval(match.group(1)))


class Reads(dict):  # type: ignore[type-arg]
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


def problems(model: str, sql: str) -> list[str]:
    """Why ``model`` reads a name the spec (or our source) does not have; empty when fine."""
    table, columns = declarations(sql)
    if not ENDPOINTS.get(table, ENDPOINTS["users"]).in_spec:
        return []
    if table in BUILT:
        builder, _, _ = BUILT[table]
        allowed = set(builder(Reads(set()))) | BUILT_COLUMNS_ADDED.get(table, set())
    elif table in ENDPOINTS:
        allowed = flattened(record_schema(table))
    else:  # written by the source itself (e.g. time_activity_coverage)
        return []
    allowed |= set(SOURCE_ADDED)
    return [
        f"{model} reads {table}.{c}: not a field of the spec" for c in sorted(columns - allowed)
    ]


MODELS = sorted(STAGING.glob("stg_connecteam__*.sql"))


@pytest.mark.parametrize("path", MODELS, ids=[p.stem for p in MODELS])
def test_staging_models_read_only_the_spec_s_field_names(path):
    assert problems(path.stem, path.read_text()) == []


@pytest.mark.parametrize("table", sorted(BUILT))
def test_row_builders_read_only_fields_the_spec_has(table):
    builder, _, schemas = BUILT[table]
    seen: set[str] = set()
    builder(Reads(seen))
    known = set()
    for name in schemas:
        known |= set(_camel_paths(SPEC["components"]["schemas"][name]))
    assert sorted(seen - known) == []


def _camel_paths(schema: Any, prefix: str = "", depth: int = 0) -> set[str]:
    paths = set()
    for name, prop in properties(schema).items():
        paths.add(prefix + name)
        if depth < 3:
            paths |= _camel_paths(prop, f"{prefix}{name}.", depth + 1)
    return paths


def test_a_model_reading_a_name_only_the_emulator_has_fails_the_check():
    invented = (
        "{%- set columns = {'user_id': 'bigint', 'document_name': 'varchar'} -%}\n"
        "select * from {{ source_or_empty('connecteam', 'users', columns) }}"
    )
    assert problems("stg_connecteam__fake", invented) == [
        "stg_connecteam__fake reads users.document_name: not a field of the spec"
    ]
    built = (
        "{%- set columns = {'id': 'varchar', 'start_timestamp': 'bigint', 'clock_in_at': 'bigint'}"
        " -%}\nselect * from {{ source_or_empty('connecteam', 'time_activities', columns) }}"
    )
    assert problems("stg_connecteam__fake", built) == [
        "stg_connecteam__fake reads time_activities.clock_in_at: not a field of the spec"
    ]
