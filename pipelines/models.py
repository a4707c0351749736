"""The ``models`` job: ``dbt build`` of the project in ``sql/`` against the warehouse, DuckDB
(default) or PostgreSQL (``WFM_SYNC_DESTINATION=postgres``), through :func:`.dbt_runner.run_dbt`;
what it rebuilds is planned (:mod:`pipelines.model_plan`).

A failing data test or model is reported by name with a sample of the offending rows,
re-queried from the DuckDB file or with psycopg2 from PostgreSQL (:mod:`pipelines.model_failures`).
Rows holding provider values a staging model could not type are counted per model (the
``untypable_values`` warn tests) in :attr:`ModelsSummary.untypable_rows`, the run log and
``wfm-sync status``; what each staging model reads and casts is its YAML declaration
(:mod:`pipelines.staging_declarations`). Unit tests are not run here: ``make test`` runs them
(``tests/e2e/test_demo.py``).

A build holds the warehouse's writer lock (:func:`pipelines.writers.writes_warehouse`): on
DuckDB the file lock every job takes turns through; on PostgreSQL the advisory lock of job
``models`` on the database, so two builds (the fold's webhook models beside the nightly's) never
swap the same ``__dbt_tmp``/``__dbt_backup`` relations under each other, from any machine. On
PostgreSQL :attr:`ModelsSummary.warehouse` is the database's URL with the password hidden.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.project import Project

from .dbt_runner import project_dir, run_dbt, target_dir
from .model_failures import FailedNode, sample_failed_rows
from .model_plan import FINGERPRINT, INPUTS, BuildPlan, plan_for
from .runs import records_run
from .warehouse import postgres_target
from .writers import writes_warehouse

logger = logging.getLogger("pipelines.models")


@dataclass
class ModelsSummary:
    """What one ``dbt build`` did.

    Attributes:
        passed: Nodes that succeeded (models built, tests passed).
        passed_by_kind: ``passed`` split by node kind (``model``, ``test``, ``unit_test``).
        warned: Tests that warned.
        skipped: Nodes skipped after an upstream failure.
        failed: Nodes that failed or errored.
        duration_seconds: Wall time.
        warehouse: The DuckDB file built, or the PostgreSQL database
            (``postgresql://user:***@host:port/database``).
        untypable_rows: Per staging model, rows holding provider values that could not be typed
            (the ``untypable_values`` warn tests; models with none are left out).
        incremental: Per incremental mart built, what it derived: ``every row (<why>)`` or
            ``the user-days of <n> changes logged since its last build``
            (``sql/macros/incremental.sql``).
        scope: What the build selected, in words (:attr:`.model_plan.BuildPlan.scope`), or the
            selection it was given.
        plan: The build's plan when it made one (no selection given): its inputs and
            fingerprint go to the run log for the next build to compare with.
    """

    passed: int = 0
    passed_by_kind: dict[str, int] = field(default_factory=dict)
    warned: int = 0
    skipped: int = 0
    failed: list[FailedNode] = field(default_factory=list)
    duration_seconds: float = 0.0
    warehouse: str = ""
    untypable_rows: dict[str, int] = field(default_factory=dict)
    incremental: dict[str, str] = field(default_factory=dict)
    scope: str = ""
    plan: BuildPlan | None = None


UNTYPABLE_TEST = "untypable_values_"
"""Name prefix of the warn tests counting rows with untypable provider values, per model."""


class ModelsBuildError(Exception):
    """``dbt build`` failed; the message names every failing node with sample rows."""

    def __init__(self, summary: ModelsSummary, reason: str = "") -> None:
        self.summary = summary
        names = ", ".join(n.name for n in summary.failed) or "none"
        lines = [f"dbt build failed ({len(summary.failed)} failing: {names}){reason}"]
        lines += [node.describe() for node in summary.failed]
        super().__init__("\n".join(lines))


def _record(summary: ModelsSummary) -> dict[str, Any]:
    """The run log's details of a build: counts, scope, and a plan's inputs and fingerprint."""
    details: dict[str, Any] = {
        "passed": summary.passed, "warned": summary.warned,
        "untypable_rows": summary.untypable_rows, "scope": summary.scope,
    }  # fmt: skip
    if summary.plan is not None:
        details |= {INPUTS: summary.plan.inputs, FINGERPRINT: summary.plan.fingerprint}
    return details


@records_run("models", _record)
@writes_warehouse("models")
def build_models(
    warehouse: Path | None = None,
    select: str | None = None,
    full_refresh: bool = False,
    *,
    everything: bool = False,
    unit_tests: bool = False,
    project: Project,
) -> ModelsSummary:
    """Run ``dbt build`` (models and their data tests; unit tests are ``make test``'s) against
    the warehouse: the DuckDB file, or with ``WFM_SYNC_DESTINATION=postgres`` the PostgreSQL
    database dlt loads into (models in its schemas ``staging``, ``intermediate``, ``marts``).

    Without ``select``, a build of the project's own warehouse plans what it rebuilds
    (:mod:`pipelines.model_plan`): the models whose inputs changed since the last whole build
    and those computed against now, or every model when the project changed or none is on
    record (``everything`` and ``full_refresh`` always build every model). A ``warehouse``
    other than the project's (a copy) is built whole, with no plan recorded. The day-grain
    marts are incremental: they re-derive the user-days whose inputs changed since their last
    build, at any age (``sql/macros/incremental.sql``), and keep the others;
    :attr:`ModelsSummary.incremental` says what each did. ``full_refresh`` rebuilds them in
    full (dbt's ``--full-refresh``), for repair only.

    Args:
        warehouse: The DuckDB file (default: the project's); not used on PostgreSQL.
        select: Optional dbt selection (``--select``); no plan is made or recorded. A data
            test runs when every model it reads is selected (dbt's ``--indirect-selection
            cautious``): a relationship test between a selected model and one not built yet
            is left out, not failed.
        full_refresh: Rebuild the incremental marts from all their history.
        everything: Build every model, whatever changed.
        unit_tests: Then run every dbt unit test (``dbt test --select test_type:unit``);
            builds leave them out by default.
        project: The project.

    Returns:
        A :class:`ModelsSummary` when everything passed (warnings allowed).

    Raises:
        ModelsBuildError: A test failed or a model errored; names and sample rows in the message.
            On PostgreSQL a database dbt could not reach is one too, its message naming the
            database (password hidden) and ``DESTINATION__POSTGRES__CREDENTIALS``.
        ValueError: ``WFM_SYNC_DESTINATION=postgres`` without PostgreSQL credentials.
        FileNotFoundError: The DuckDB warehouse file does not exist (run ``wfm-sync sync``
            first).
        WarehouseBusyError: The writer lock (DuckDB: any job; PostgreSQL: another build)
            stayed taken for the whole wait.
        WarehouseUnreachableError: The PostgreSQL warehouse refused the lock's connection.
    """
    path = None
    if project.destination == "postgres":
        where = postgres_target().display_url
    else:
        path = (warehouse or project.warehouse).resolve()
        if not path.exists():
            raise FileNotFoundError(f"no warehouse at {path}: run `wfm-sync sync` first")
        where = str(path)
    plan, scope = None, f"the selection {select}"
    if not select and (path is None or path == project.warehouse.resolve()):
        whole = everything or full_refresh
        plan = plan_for(project, project_dir(project.settings), whole)
        select, scope = plan.select, plan.scope
    elif not select:
        scope = "every model (a warehouse file other than the project's: no plan)"
    args = ["build", "--exclude-resource-type", "unit_test"]
    if select:
        args += ["--select", select]
        if plan is None:  # a caller's selection: a test runs when all it reads is selected
            args += ["--indirect-selection", "cautious"]
    args += ["--full-refresh"] if full_refresh else []
    summary = _build(project, path, where, args, scope, plan)
    if unit_tests:  # dbt build selects a unit test only with its model: dbt test runs them all
        unit_args = ["test", "--select", "test_type:unit"]
        units = _build(project, path, where, unit_args, "every unit test", None)
        summary.passed += units.passed
        summary.passed_by_kind |= units.passed_by_kind
        summary.duration_seconds = round(summary.duration_seconds + units.duration_seconds, 2)
    return summary


def _build(
    project: Project, path: Path | None, where: str, args: list[str], scope: str,
    plan: BuildPlan | None,
) -> ModelsSummary:  # fmt: skip
    """``dbt <args>`` (a build) on the DuckDB file ``path`` or (``None``) the PostgreSQL
    warehouse of ``project``, shown as ``where``, building ``scope`` (words) as ``plan`` chose
    (``None``: no plan); the summary, or :class:`ModelsBuildError` (see :func:`build_models`)."""
    started = time.monotonic()
    notes: dict[str, str] = {}
    logger.info("dbt %s of %s", args[0], scope)
    result = run_dbt(args, path, project=project, notes=notes)
    summary = ModelsSummary(warehouse=where, incremental=notes, scope=scope, plan=plan)
    for node_result in getattr(result.result, "results", None) or []:
        _count_node(summary, node_result, path)
    summary.duration_seconds = round(time.monotonic() - started, 2)
    if summary.failed or not result.success:
        raise ModelsBuildError(summary, _build_failure_reason(summary, result, path))
    logger.info(
        "dbt build passed: %d nodes, %d warnings, %.1f s",
        summary.passed, summary.warned, summary.duration_seconds,
    )  # fmt: skip
    return summary


def _count_node(summary: ModelsSummary, node_result: Any, path: Path | None) -> None:
    """Add one of dbt's node results to ``summary``: passed (by kind), warned (untypable-row
    counts), skipped, or failed (a failed test's rows sampled, :func:`sample_failed_rows`); an
    exposure's no-op is not counted."""
    status = str(node_result.status).lower().rsplit(".", 1)[-1]
    node = node_result.node
    kind = str(node.resource_type).rsplit(".", 1)[-1].lower()
    if status in ("pass", "success"):
        summary.passed += 1
        summary.passed_by_kind[kind] = summary.passed_by_kind.get(kind, 0) + 1
    elif status == "warn":
        summary.warned += 1
        if node.name.startswith(UNTYPABLE_TEST):
            model = str(getattr(node, "attached_node", "") or node.name).rsplit(".", 1)[-1]
            summary.untypable_rows[model] = int(node_result.failures or 0)
    elif status == "skipped":
        summary.skipped += 1
    elif status in ("no-op", "noop"):
        return  # an exposure (the dashboard, the report): nothing of dbt's runs for it
    else:
        failed = FailedNode(
            name=node.name,
            kind=kind,
            status=status,
            message=str(node_result.message or "").strip(),
            failures=node_result.failures,
        )
        summary.failed.append(failed)
        if failed.kind == "test":
            sample_failed_rows(failed, getattr(node, "compiled_code", None), path)


def _build_failure_reason(summary: ModelsSummary, result: Any, path: Path | None) -> str:
    """What to add to :class:`ModelsBuildError`'s first line: nothing when nodes failed (they are
    described), else dbt's exception; when dbt could not connect to PostgreSQL (``path``
    ``None``), also the database it tried (password hidden) and the setting to correct."""
    if summary.failed:
        return ""
    from dbt.adapters.exceptions import FailedToConnectError

    reason = f": {result.exception or 'see the dbt log above'}"
    if path is None and isinstance(result.exception, FailedToConnectError):
        reason += (
            f"\n(could not connect to the PostgreSQL warehouse {summary.warehouse}: check "
            "DESTINATION__POSTGRES__CREDENTIALS, its host, port, database, user and password)"
        )
    return reason


def generate_docs(project: Project) -> Path:
    """``dbt docs generate --static`` on ``project``'s warehouse: a single offline HTML file of
    models, columns, tests and lineage. Returns its path (``static_index.html`` in
    :func:`target_dir`, by default ``sql/target/``).

    Raises:
        RuntimeError: dbt could not generate the docs.
    """
    result = run_dbt(["docs", "generate", "--static"], project=project)
    if not result.success:
        raise RuntimeError(f"dbt docs generate failed: {result.exception}")
    return target_dir(project.settings) / "static_index.html"
