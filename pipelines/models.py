"""The ``models`` job: ``dbt build`` of the project in ``sql/`` against the warehouse, DuckDB
(default) or PostgreSQL (``WFM_SYNC_DESTINATION=postgres``).

dbt runs in-process through its Python runner (``dbtRunner``) with the project's own
``sql/profiles.yml``. On DuckDB, target ``warehouse`` (no extensions to download) opens the
warehouse file named by the dbt variable ``warehouse``. On PostgreSQL, target ``postgres``
connects to the database dlt loads into (``DESTINATION__POSTGRES__CREDENTIALS``): host, port,
user and database as the dbt variables ``postgres_host``/``_port``/``_user``/``_dbname``, the
password only in the environment variable ``DBT_ENV_SECRET_POSTGRES_PASSWORD`` (dbt keeps such
values out of its logs and artifacts), with ``PGTZ=UTC`` (the session's timezone, so a
``timestamptz`` cast to a date falls on the UTC day, as on DuckDB); both variables are set for
the duration of the call only. The models land in the schemas ``staging``, ``intermediate`` and
``marts`` beside the raw ones. The dbt variable ``now`` is the project's clock
(:func:`core.clock.now`) when ``WFM_SYNC_NOW`` pins it; otherwise it is not passed and the
models take the build's start (dbt's ``run_started_at``), so the variables stay the same from run
to run and dbt re-parses only what changed.

The project's packages are vendored in ``sql/vendor/`` (``sql/packages.yml``, ``local:``);
:func:`run_dbt` links them with ``dbt deps`` the first time, offline. dbt runs ``--quiet`` (set
``WFM_SYNC_DBT_VERBOSE=1`` for its per-node log); a failing data test, unit test or model is
reported by name with a sample of the offending rows, re-queried from the DuckDB file or with
psycopg2 from PostgreSQL (:mod:`pipelines.model_failures`). Rows holding provider values a
staging model could not type are counted per model (the ``untypable_values`` warn tests) in
:attr:`ModelsSummary.untypable_rows`, the run log and ``wfm-sync status``; what each staging
model reads and casts is its YAML declaration (:mod:`pipelines.staging_declarations`). The
dbt-project-evaluator package is built only with the dbt variable ``evaluate_project`` (never by
:func:`build_models`).

A build holds the warehouse's writer lock (:func:`pipelines.warehouse.writes_warehouse`): on
DuckDB the file lock every job takes turns through; on PostgreSQL the advisory lock of job
``models`` on the database, so two builds (the fold's webhook models beside the nightly's) never
swap the same ``__dbt_tmp``/``__dbt_backup`` relations under each other, from any machine. On
PostgreSQL :attr:`ModelsSummary.warehouse` is the database's URL with the password hidden.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock

from core import clock, settings
from core.progress import Progress
from core.project import Project, given_or_resolved
from core.settings import Settings

from .model_failures import FailedNode, sample_failed_rows
from .runs import records_run
from .warehouse import postgres_target, writes_warehouse

logger = logging.getLogger("pipelines.models")


def project_dir(configured: Settings | None = None) -> Path:
    """The dbt project: setting ``dbt_project_dir`` of ``configured`` when set, else the one
    shipped with the package (``pipelines/dbt_project``: in the repository a link to ``sql/``, in
    an installed wheel its copy, package data)."""
    chosen = configured.dbt_project_dir if configured is not None else None
    return chosen or (Path(__file__).parent / "dbt_project").resolve()


def target_dir(configured: Settings) -> Path:
    """Where dbt writes its artifacts: setting ``dbt_target_dir`` (``WFM_SYNC_DBT_TARGET_DIR``)
    or the dbt project's ``target/``.

    Two dbt runs at once (``wfm-sync status`` beside a nightly, or parallel test workers) each
    need their own: dbt rewrites its manifest and parse cache there on every run.
    """
    return configured.dbt_target_dir or project_dir(configured) / "target"


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


INCREMENTAL_NOTE = "incremental: "
"""Prefix of the log lines in which an incremental mart says what it derives
(``sql/macros/incremental.sql``): ``incremental: <mart>: <what>``."""

PACKAGES = ("dbt_utils", "dbt_project_evaluator")
"""The project's dbt packages (``sql/packages.yml``), vendored in ``sql/vendor/``."""

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


def run_dbt(
    args: list[str],
    warehouse: Path | None = None,
    variables: dict[str, Any] | None = None,
    *,
    project: Project | None = None,
    notes: dict[str, str] | None = None,
) -> Any:
    """Invoke dbt in-process on the dbt project and ``project``'s warehouse (``warehouse`` when
    given; ``project`` default :func:`core.project.resolve`); returns dbt's runner result.

    DuckDB: the warehouse file reaches ``profiles.yml`` as the dbt variable ``warehouse``.
    PostgreSQL (:func:`pipelines.warehouse.postgres_target`): target ``postgres``, its host,
    port, user and database as dbt variables, and, for the duration of the call only, the
    password in ``DBT_ENV_SECRET_POSTGRES_PASSWORD`` and ``PGTZ=UTC`` (the session's timezone,
    UTC as DuckDB's) in the environment: the one hand-off of ours through the environment, as
    dbt reads a secret nowhere else without logging it. ``variables`` go beside them
    (``--vars``), and ``now`` (epoch seconds) when ``WFM_SYNC_NOW`` pins the clock, ``currency``
    when the project's setting ``currency`` names it; otherwise the models take the build's
    start (dbt's ``run_started_at``) as now, and the variables stay the same from run to run, so
    dbt parses only what changed. Every finished node (model, test, unit test, source) is counted
    in a :class:`core.progress.Progress` line ``dbt <command>``; the incremental marts' notes
    (:data:`INCREMENTAL_NOTE`) go into ``notes`` by mart when given.

    Raises:
        ValueError: PostgreSQL credentials missing (:func:`pipelines.warehouse.postgres_target`).
    """
    from dbt.cli.main import dbtRunner

    project = given_or_resolved(project)
    _install_packages(project_dir(project.settings))
    progress = Progress(f"dbt {args[0]}", unit="nodes", pages_unit="nodes", logger=logger)

    def on_event(event: Any) -> None:
        if event.info.name == "NodeFinished":
            progress.page(1)
        elif event.info.name == "JinjaLogInfo" and notes is not None:
            message = str(event.data.msg)
            if message.startswith(INCREMENTAL_NOTE):
                mart, _, what = message.removeprefix(INCREMENTAL_NOTE).partition(": ")
                notes[mart] = what

    target_args, connection, environment = _target(project, warehouse)
    arguments = _dbt_arguments(args, target_args, connection, variables, project.settings)
    try:
        with settings.environment(environment):
            result = dbtRunner(callbacks=[on_event]).invoke(arguments)
        progress.done()
        return result
    finally:
        if project.destination == "duckdb":
            _release_warehouse()


def _dbt_arguments(
    args: list[str],
    target_args: list[str],
    connection: dict[str, Any],
    variables: dict[str, Any] | None,
    configured: Settings,
) -> list[str]:
    """dbt's command line for ``args`` under the settings ``configured``: quiet unless
    ``dbt_verbose``; the target, the project and its profiles; the target and log paths;
    ``--vars`` of the connection, ``now`` (only when the clock is pinned: a var that changes on
    every run makes dbt re-parse the whole project, ~10 s), ``currency`` (when named) and
    ``variables``."""
    pinned = {"now": clock.now()} if clock.pinned() else {}
    named = {"currency": configured.currency} if configured.currency else {}
    dbt_vars = json.dumps({**connection, **pinned, **named, **(variables or {})})
    verbosity = [] if configured.dbt_verbose else ["--quiet"]
    paths = [] if "--target-path" in args else ["--target-path", str(target_dir(configured))]
    if configured.dbt_target_dir and "--log-path" not in args:
        paths += ["--log-path", str(configured.dbt_target_dir / "logs")]
    project = str(project_dir(configured))
    return [
        *verbosity, *args, *target_args, *paths, "--vars", dbt_vars,
        "--project-dir", project, "--profiles-dir", project, "--no-use-colors",
    ]  # fmt: skip


def _target(
    project: Project, warehouse: Path | None
) -> tuple[list[str], dict[str, Any], dict[str, str]]:
    """What points dbt at ``project``'s warehouse (``warehouse`` when given): ``(target
    arguments, dbt variables, environment)``.

    DuckDB: ``([], {"warehouse": <absolute path>}, {})``. PostgreSQL: ``(["--target",
    "postgres"], {"postgres_host", "postgres_port", "postgres_user", "postgres_dbname"},
    {"DBT_ENV_SECRET_POSTGRES_PASSWORD": <password>, "PGTZ": "UTC"})``; the password is in the
    environment only, never in the arguments or variables (dbt logs those).

    Raises:
        ValueError: PostgreSQL credentials missing (:func:`pipelines.warehouse.postgres_target`).
    """
    if project.destination == "postgres":
        target = postgres_target()
        connection = {
            "postgres_host": target.host,
            "postgres_port": target.port,
            "postgres_user": target.user,
            "postgres_dbname": target.database,
        }
        environment = {"DBT_ENV_SECRET_POSTGRES_PASSWORD": target.password, "PGTZ": "UTC"}
        return ["--target", "postgres"], connection, environment
    path = (warehouse or project.warehouse).resolve()
    return [], {"warehouse": str(path)}, {}


def _install_packages(project: Path) -> None:
    """``dbt deps`` when a package of :data:`PACKAGES` is not linked in ``dbt_packages/`` yet
    (a fresh clone). Every package is a ``local:`` copy in ``sql/vendor/``: no network.

    Raises:
        RuntimeError: dbt could not install them.
    """
    installed = project / "dbt_packages"
    if all((installed / name).exists() for name in PACKAGES):
        return
    from dbt.cli.main import dbtRunner

    # dbt deps empties dbt_packages/ first: two processes starting on a fresh clone take turns
    with FileLock(str(project / ".dbt_packages.lock")):
        if all((installed / name).exists() for name in PACKAGES):
            return
        result = dbtRunner().invoke(
            ["--quiet", "deps", "--project-dir", str(project), "--profiles-dir", str(project)]
        )
    if not result.success:
        raise RuntimeError(f"dbt deps failed: {result.exception}")


def _release_warehouse() -> None:
    """Close dbt-duckdb's cached database handle.

    dbt-duckdb keeps the DuckDB file open in the process after ``invoke`` returns; a long-lived
    process (a Prefect worker, this job followed by others) would then hold the file's lock, and
    even read-only connections from the same process would be refused.
    """
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager

    environment = DuckDBConnectionManager._ENV
    if environment is not None:
        environment.close()
    DuckDBConnectionManager.close_all_connections()


@records_run(
    "models",
    lambda s: {"passed": s.passed, "warned": s.warned, "untypable_rows": s.untypable_rows},
)
@writes_warehouse("models")
def build_models(
    warehouse: Path | None = None,
    select: str | None = None,
    full_refresh: bool = False,
    *,
    project: Project | None = None,
) -> ModelsSummary:
    """Run ``dbt build`` (models, data tests, unit tests) against the warehouse: the DuckDB file,
    or with ``WFM_SYNC_DESTINATION=postgres`` the PostgreSQL database dlt loads into (models in
    its schemas ``staging``, ``intermediate``, ``marts``).

    The day-grain marts are incremental: they re-derive the user-days whose inputs changed
    since their last build, at any age (``sql/macros/incremental.sql``), and keep the others;
    :attr:`ModelsSummary.incremental` says what each did. ``full_refresh`` rebuilds them in
    full (dbt's ``--full-refresh``), for repair only.

    Args:
        warehouse: The DuckDB file (default: the project's); not used on PostgreSQL.
        select: Optional dbt selection (``--select``).
        full_refresh: Rebuild the incremental marts from all their history.
        project: The project (default :func:`core.project.resolve`).

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
    args = ["build"] + (["--select", select] if select else [])
    args += ["--full-refresh"] if full_refresh else []
    project = given_or_resolved(project)
    if project.destination == "postgres":
        return _build(project, None, postgres_target().display_url, args)
    path = (warehouse or project.warehouse).resolve()
    if not path.exists():
        raise FileNotFoundError(f"no warehouse at {path}: run `wfm-sync sync` first")
    return _build(project, path, str(path), args)


def _build(project: Project, path: Path | None, where: str, args: list[str]) -> ModelsSummary:
    """``dbt <args>`` (a build) on the DuckDB file ``path`` or (``None``) the PostgreSQL
    warehouse of ``project``, shown as ``where``; the summary, or :class:`ModelsBuildError`
    (see :func:`build_models`)."""
    started = time.monotonic()
    notes: dict[str, str] = {}
    result = run_dbt(args, path, project=project, notes=notes)
    summary = ModelsSummary(warehouse=where, incremental=notes)
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
