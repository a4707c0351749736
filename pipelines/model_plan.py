"""What a models build rebuilds: the models whose inputs changed since the last whole build, and
the ones computed against now, each with its data tests.

A build that is not given a selection plans one (:func:`plan_build`):

* **inputs**: per raw table a source of the dbt project declares
  (``models/staging/<source>/_<source>__sources.yml``), its signature ``<rows>:<newest
  _dlt_load_id>:<sum of the _dlt_load_ids>`` read from the warehouse (:func:`read_inputs`): a
  load that adds, changes or soft-deletes rows gives them its own ``_dlt_load_id`` (the sum
  moves even when a load's id is not the newest, a worker's clock behind); a removal changes
  the rows. The sum is exact (decimal), so an unchanged table always gives the same signature.
  A table that does not exist is ``absent``; one that cannot be read that way (no
  ``_dlt_load_id``) has no signature and counts as changed on every build.
* **the project's fingerprint**: a digest of the dbt project's files (models, macros, seeds,
  tests, packages, ``dbt_project.yml``), dbt's version, the destination and the currency
  (:func:`project_fingerprint`).
* **the last whole build**: the newest successful ``models`` run of the run log that recorded
  its inputs and fingerprint (:data:`INPUTS`, :data:`FINGERPRINT`): a planned build or a build of
  everything. A build given a selection (the fold's webhook models, ``--select``) records none.

Every model is built (with its data tests) when there is no such build, or the fingerprint
differs; otherwise the descendants of each changed input (``source:<source>.<table>+``) and of
the models tagged :data:`AS_OF_TAG` (they compare rows with the build's now: a shift's no-show
becomes true with time alone). On a quiet night that is the models computed against now.
The incremental marts re-derive what changed since their own last build either way, so a
model skipped tonight misses nothing the next build that selects it would not catch up.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .dbt_yaml import read_yaml
from .source_freshness import SOURCES_YAML

if TYPE_CHECKING:
    from core.project import Project

AS_OF_TAG = "as_of"
"""dbt tag of the models that read the build's now (the ``as_of_time()`` macro): built on every
planned build (``tests/unit/pipelines/test_model_plan.py`` checks the tag against the models' SQL
and the macros that call it)."""
INPUTS = "inputs"
"""Key of a ``models`` run record's details: raw table -> signature at the build's start."""
FINGERPRINT = "fingerprint"
"""Key of a ``models`` run record's details: :func:`project_fingerprint` of the build."""
PROJECT_FILES = ("models", "macros", "seeds", "tests", "snapshots", "vendor")
"""Folders of the dbt project whose files the fingerprint covers, with the top-level YAML."""


@dataclass(frozen=True)
class BuildPlan:
    """What one build selects, and why.

    Attributes:
        select: dbt's ``--select`` (space-separated selectors), or ``None`` for every node.
        scope: In words: ``every model (<why>)`` or ``what changed: <tables>; and the models
            computed against now``.
        inputs: Raw table (``schema.table``) -> its signature at the build's start (``None``:
            unreadable).
        fingerprint: The project's fingerprint.
        changed: The inputs whose signature differs from the last whole build's.
    """

    select: str | None
    scope: str
    inputs: dict[str, str | None]
    fingerprint: str
    changed: list[str] = field(default_factory=list)


def declared_sources(dbt_project: Path) -> list[tuple[str, str, str]]:
    """``(source name, schema, table)`` of every table the project's sources declare."""
    found = []
    for path in sorted(dbt_project.glob(SOURCES_YAML.format(source="*"))):
        for source in (read_yaml(path) or {}).get("sources") or []:
            schema = source.get("schema") or source["name"]
            for table in source.get("tables") or []:
                found.append((source["name"], schema, table["name"]))
    return found


def read_inputs(client: Any, tables: list[tuple[str, str, str]]) -> dict[str, str | None]:
    """``source.table`` -> its signature (module docstring), through a dlt SQL ``client``
    (DuckDB or PostgreSQL); a query that fails gives ``None`` for that table only."""
    with client.execute_query(
        "select table_schema, table_name from information_schema.tables"
    ) as cursor:
        existing = {(str(s), str(t)) for s, t in cursor.fetchall()}
    inputs: dict[str, str | None] = {}
    for source, schema, table in tables:
        name = f"{source}.{table}"
        if (schema, table) not in existing:
            inputs[name] = "absent"
            continue
        qualified = f"{client.escape_column_name(schema)}.{client.escape_column_name(table)}"
        try:
            with client.execute_query(
                "select count(*), max(_dlt_load_id), "
                f"sum(cast(_dlt_load_id as decimal(20, 6))) from {qualified}"
            ) as cursor:
                rows, newest, total = cursor.fetchone()
        except Exception:  # noqa: BLE001 - no _dlt_load_id: counted as changed every build
            inputs[name] = None
            continue
        inputs[name] = f"{int(rows)}:{newest}:{total}"
    return inputs


def project_fingerprint(dbt_project: Path, extra: dict[str, str]) -> str:
    """A digest (hex) of the dbt project's files (:data:`PROJECT_FILES` and its top-level
    ``*.yml``; the artifacts in ``target/``, ``logs/`` and ``dbt_packages/`` left out) and of
    ``extra`` (dbt's version, the destination, the currency)."""
    digest = hashlib.sha256()
    files = sorted(dbt_project.glob("*.yml"))
    for folder in PROJECT_FILES:
        files += sorted(p for p in (dbt_project / folder).rglob("*") if p.is_file())
    for path in files:
        digest.update(str(path.relative_to(dbt_project)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    for key, value in sorted(extra.items()):
        digest.update(f"{key}={value}\0".encode())
    return digest.hexdigest()


def plan_build(
    inputs: dict[str, str | None], fingerprint: str, last: dict[str, Any] | None
) -> BuildPlan:
    """The plan of the module docstring, from this build's ``inputs`` and ``fingerprint`` and
    the details of the last whole build (``None``: none on record)."""
    if last is None or INPUTS not in last or FINGERPRINT not in last:
        return BuildPlan(None, "every model (no earlier whole build on record)", inputs,
                         fingerprint)  # fmt: skip
    if last[FINGERPRINT] != fingerprint:
        why = "the dbt project, dbt or the build's settings changed since the last whole build"
        return BuildPlan(None, f"every model ({why})", inputs, fingerprint)
    before = last[INPUTS]
    changed = [t for t, s in inputs.items() if s is None or before.get(t) != s]
    selectors = [f"source:{table}+" for table in changed] + [f"tag:{AS_OF_TAG}+"]
    scope = "what changed: " + (", ".join(changed) if changed else "nothing")
    return BuildPlan(
        " ".join(selectors), scope + "; and the models computed against now", inputs,
        fingerprint, changed,
    )  # fmt: skip


def plan_for(project: Project, dbt_project: Path, whole: bool) -> BuildPlan:
    """The plan of a build of ``project``'s warehouse with the dbt project ``dbt_project``:
    its inputs read now, its fingerprint, and the last whole build of its run log; ``whole``
    (a build of every model asked for): every model, the inputs still recorded.

    Raises:
        Exception: The warehouse could not be opened (dlt's or the driver's error).
    """
    import dbt.version

    from .runs import read_runs
    from .warehouse import build_pipeline

    with build_pipeline(project=project).sql_client() as client:
        inputs = read_inputs(client, declared_sources(dbt_project))
    extra = {
        "dbt": str(dbt.version.__version__),
        "destination": str(project.destination),
        "currency": str(project.settings.currency or ""),
    }
    fingerprint = project_fingerprint(dbt_project, extra)
    if whole:
        return BuildPlan(None, "every model (asked for)", inputs, fingerprint)
    last = next(
        (r.details for r in reversed(read_runs(project.paths.run_log))
         if r.job == "models" and r.outcome == "succeeded" and FINGERPRINT in r.details),
        None,
    )  # fmt: skip
    return plan_build(inputs, fingerprint, last)
