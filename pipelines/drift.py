"""Schema drift ``wfm-sync status`` shows: fields the provider sends that the project does not
know, and enum values the staging models do not accept. Information, never a problem.

**Undeclared fields.** dlt adds a column to a raw table for every field a record carries (the
users, forms, schedulers, shifts and user documents rows are the provider's record itself, its
camelCase fields named in snake_case: ``favouriteColour`` lands as ``favourite_colour``). A
column of ``connecteam.<table>`` in dlt's newest stored schema (``connecteam._dlt_version``) is
listed unless (:func:`undeclared_columns`):

* a staging model reading ``connecteam.<table>`` declares it (``raw_columns`` of its YAML
  ``meta``, :func:`pipelines.staging_declarations.staging_declarations`);
* the source adds or declares it: dlt's ``_dlt_*`` columns, ``untyped_values``, the deletion
  mark (``is_deleted``, ``deleted_at``), ``content_hash``, ``observed_at``, ``version_key``, the
  table's key (:data:`sources.connecteam.registry.STREAMS`), and every column the stream's
  resource gives a type (its dlt column hints: ``smart_groups_ids`` of ``users``);
* the table is a history table ``<entity>_versions`` and the column is expected in the table it
  keeps the versions of (``user_versions`` of ``users``, ``shift_versions`` of ``shifts``).

A column holding no value (rows not null: 0) is not listed either: dlt created it from a type
the source declares, the provider sent nothing in it. Each one listed is shown with when it first
appeared (the ``inserted_at`` of the first stored schema version holding it, UTC) and its rows
(not null) now. A stream whose rows the source maps field by field can show a column here too:
one the mapping keeps without a declared type and no staging model reads.

**New enum values.** Per staging column tested with ``accepted_values`` that the model reads as a
raw column as it is (not from inside a JSON column), the values of the raw table the list does
not hold, with their rows (a list given as ``{{ var('name') }}`` is read from
``dbt_project.yml``'s ``vars``).
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from core.project import Project
from sources.connecteam.contract import QUARANTINE_COLUMNS, QUARANTINE_TABLE
from sources.connecteam.registry import STREAMS as REGISTRY

from .dbt_runner import project_dir
from .dbt_yaml import read_yaml
from .staging_declarations import STAGING_MODELS_YAML, staging_declarations
from .status_report import Drift, DriftField, EnumDrift, iso
from .warehouse import DATASET_CONNECTEAM

SOURCE_COLUMNS = frozenset(
    {"untyped_values", "is_deleted", "deleted_at", "content_hash", "observed_at", "version_key"}
)
"""Columns the source adds to rows (besides dlt's ``_dlt_*`` and each table's key)."""
VERSIONS_SUFFIX = "_versions"
MAX_VALUES_SHOWN = 20
"""Unaccepted values listed per column (the most frequent); ``new_values`` counts them all."""


def undeclared_columns(
    tables: Mapping[str, Iterable[str]], expected: Mapping[str, set[str]]
) -> dict[str, list[str]]:
    """The rule of the module docstring, on names alone.

    Args:
        tables: Raw table (bare name, ``users``) -> its columns, as dlt's schema holds them.
        expected: Raw table -> the columns staging models read or the source declares there
            (:func:`expected_columns`); ``_dlt_*``, :data:`SOURCE_COLUMNS` and, for
            ``<entity>_versions``, ``<entity>s``'s expected columns count as expected too.

    Returns:
        Table -> its unexpected columns, in schema order; tables without any left out
        (``_dlt_*`` tables never listed).
    """
    found: dict[str, list[str]] = {}
    for table, columns in tables.items():
        if table.startswith("_dlt"):
            continue
        known = set(expected.get(table, set())) | SOURCE_COLUMNS
        if table.endswith(VERSIONS_SUFFIX):
            known |= expected.get(table.removesuffix(VERSIONS_SUFFIX) + "s", set())
        extra = [c for c in columns if not c.startswith("_dlt") and c not in known]
        if extra:
            found[table] = extra
    return found


def expected_columns(project: Project) -> dict[str, set[str]]:
    """Raw table (bare name) -> the columns a staging model reads there, the stream's key and
    the columns its resource gives a type (dlt column hints); the sync's own
    ``connecteam.quarantine`` declares all of its columns."""
    expected: dict[str, set[str]] = {}
    for declaration in staging_declarations(project_dir(project.settings)).values():
        dataset, _, table = declaration.raw_table.partition(".")
        if dataset == DATASET_CONNECTEAM:
            expected.setdefault(table, set()).update(declaration.raw_columns)
    for name, stream in REGISTRY.items():
        expected.setdefault(name, set()).update(stream.key)
    for name, hinted in _resource_hints().items():
        expected.setdefault(name, set()).update(hinted)
    expected.setdefault(QUARANTINE_TABLE, set()).update(QUARANTINE_COLUMNS)  # the sync's own
    return expected


def _resource_hints() -> dict[str, set[str]]:
    """Resource -> the columns it declares a type for; nothing when the source cannot be built
    (nothing is requested: the key given is never sent)."""
    from sources.connecteam import connecteam_source

    try:
        source = connecteam_source(0.0, api_key="unused", base_url="http://127.0.0.1")
    except Exception:  # noqa: BLE001 - a bad setting: sync reports it; status shows the rest
        return {}
    return {
        name: set(resource.columns) if isinstance(resource.columns, dict) else set()
        for name, resource in source.resources.items()
    }


def collect_drift(client: Any, project: Project) -> Drift:
    """The drift of ``project``'s warehouse through a dlt SQL ``client`` (module docstring):
    undeclared fields with first-seen time (ISO 8601 UTC) and rows, then new enum values.
    Reads only; an error is kept in :attr:`Drift.error`, never raised."""
    drift = Drift()
    try:
        versions = schema_versions(client)
        existing = _table_columns(client)
        if versions:
            newest = versions[-1][1]
            expected = expected_columns(project)
            for table, columns in sorted(undeclared_columns(newest, expected).items()):
                for column in columns:
                    if column not in existing.get(table, set()):
                        continue  # in dlt's schema, not (yet) created in the warehouse
                    rows = _not_null(client, table, column)
                    if rows:
                        seen = first_seen(versions, table, column)
                        name = f"{DATASET_CONNECTEAM}.{table}"
                        drift.fields.append(DriftField(name, column, seen, rows))
        drift.enum_values = _enum_drift(client, project, existing)
    except Exception as exc:  # noqa: BLE001 - drift is information: never fails status
        drift.error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return drift


def schema_versions(client: Any) -> list[tuple[float, dict[str, list[str]]]]:
    """Every stored version of the ``connecteam`` schema, oldest first: ``(inserted_at`` as
    epoch seconds, table -> its columns that have a data type, i.e. exist in the warehouse)``."""
    table = f"{client.escape_column_name(DATASET_CONNECTEAM)}._dlt_version"
    with client.execute_query(
        f"select inserted_at, {client.escape_column_name('schema')} from {table} "
        "where schema_name = %s order by version, inserted_at",
        DATASET_CONNECTEAM,
    ) as cursor:
        rows = cursor.fetchall()
    found = []
    for inserted_at, text in rows:
        schema = _schema_dict(str(text))
        tables = {
            name: [c for c, spec in (t.get("columns") or {}).items() if spec.get("data_type")]
            for name, t in (schema.get("tables") or {}).items()
        }
        at = inserted_at.timestamp() if isinstance(inserted_at, datetime) else float(inserted_at)
        found.append((at, tables))
    return found


def _schema_dict(text: str) -> dict[str, Any]:
    """A stored schema: JSON text, or (large schemas on some destinations) zlib in base64."""
    if not text.lstrip().startswith("{"):
        text = zlib.decompress(base64.b64decode(text)).decode("utf-8")
    loaded = json.loads(text)
    return loaded if isinstance(loaded, dict) else {}


def first_seen(
    versions: list[tuple[float, dict[str, list[str]]]], table: str, column: str
) -> str | None:
    """When the first of ``versions`` (:func:`schema_versions`) holding ``table.column`` was
    stored, ISO 8601 UTC; ``None`` when none holds it."""
    for at, tables in versions:
        if column in tables.get(table, ()):
            return iso(at)
    return None


def _table_columns(client: Any) -> dict[str, set[str]]:
    with client.execute_query(
        "select table_name, column_name from information_schema.columns where table_schema = %s",
        DATASET_CONNECTEAM,
    ) as cursor:
        found: dict[str, set[str]] = {}
        for table, column in cursor.fetchall():
            found.setdefault(str(table), set()).add(str(column))
        return found


def _qualified(client: Any, table: str) -> str:
    return f"{client.escape_column_name(DATASET_CONNECTEAM)}.{client.escape_column_name(table)}"


def _not_null(client: Any, table: str, column: str) -> int:
    quoted = client.escape_column_name(column)
    with client.execute_query(f"select count({quoted}) from {_qualified(client, table)}") as cursor:
        (rows,) = cursor.fetchone()
    return int(rows)


def accepted_values(project: Project) -> list[tuple[str, str, str, list[str]]]:
    """``(model, raw table (bare name), raw column, accepted values)`` of every staging column of
    source ``connecteam`` tested with ``accepted_values`` and read as a raw column as it is."""
    root = project_dir(project.settings)
    variables = _dbt_vars(root)
    declarations = staging_declarations(root)
    checks = []
    for path in sorted(root.glob(STAGING_MODELS_YAML)):
        for model in read_yaml(path).get("models") or []:
            declaration = declarations.get(model["name"])
            if declaration is None or not declaration.raw_table.startswith(DATASET_CONNECTEAM):
                continue
            raw = set(declaration.raw_columns)
            for column in model.get("columns") or []:
                values = _accepted(column, variables)
                if values is not None and column["name"] in raw:
                    table = declaration.raw_table.partition(".")[2]
                    checks.append((model["name"], table, column["name"], values))
    return checks


def _accepted(column: dict[str, Any], variables: dict[str, Any]) -> list[str] | None:
    """The values of ``column``'s ``accepted_values`` test, if it has one."""
    for test in column.get("data_tests") or []:
        if isinstance(test, dict) and "accepted_values" in test:
            spec = test["accepted_values"] or {}
            values = (spec.get("arguments") or spec).get("values")
            if isinstance(values, str):
                named = re.search(r"var\(\s*['\"](\w+)['\"]\s*\)", values)
                values = variables.get(named.group(1)) if named else None
            return [str(v) for v in values] if isinstance(values, list) else None
    return None


def _dbt_vars(root: Path) -> dict[str, Any]:
    project_file = root / "dbt_project.yml"
    if not project_file.exists():
        return {}
    return dict((read_yaml(project_file) or {}).get("vars") or {})


def _enum_drift(client: Any, project: Project, existing: dict[str, set[str]]) -> list[EnumDrift]:
    """Per check of :func:`accepted_values` whose column exists: the raw values not accepted."""
    found = []
    for model, table, column, values in accepted_values(project):
        if column not in existing.get(table, set()):
            continue
        quoted = client.escape_column_name(column)
        placeholders = ", ".join(["%s"] * len(values))
        with client.execute_query(
            f"select cast({quoted} as varchar) as v, count(*) as n from "
            f"{_qualified(client, table)} where {quoted} is not null "
            f"and cast({quoted} as varchar) not in ({placeholders}) group by v order by n desc, v",
            *values,
        ) as cursor:
            counts = {str(v): int(n) for v, n in cursor.fetchall()}
        if counts:
            shown = dict(list(counts.items())[:MAX_VALUES_SHOWN])
            found.append(
                EnumDrift(f"{DATASET_CONNECTEAM}.{table}", column, model, len(counts), shown)
            )
    return found
