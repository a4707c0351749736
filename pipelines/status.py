"""The ``status`` job: one look at whether the warehouse is fresh and the jobs are healthy.

Reads, never writes: the run log (:mod:`pipelines.runs`), the warehouse (through the dlt
pipeline's SQL client, so DuckDB and PostgreSQL alike), the webhook inbox and the pipelines'
working directories. The newest provider time of each API table is dbt's ``source freshness``
of source ``connecteam`` (``loaded_at_field`` in ``sql/models/staging/connecteam/
_connecteam__sources.yml``), run read-only on a DuckDB warehouse and through dbt-postgres on a
PostgreSQL one; for a table or column that does not exist or a column that is not a number, a
table has no newest time. A DuckDB warehouse held by a running job is reported as busy, not as
an error; everything else is still shown. On PostgreSQL the warehouse is shown as its URL with
the password hidden, and the ``publish`` job (DuckDB only) is not listed.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from core import settings
from sources.connecteam.registry import STREAMS as REGISTRY

from .fold import DATASET_WEBHOOKS
from .inbox_status import inbox_status
from .models import run_dbt, target_dir
from .runs import JOBS, RunRecord, read_runs, run_log_path
from .sync import STREAMS
from .timesheet_match import read_timesheet_match
from .warehouse import (
    DATASET_CONNECTEAM,
    build_pipeline,
    default_pipelines_dir,
    destination_name,
    postgres_target,
    warehouse_path,
)

logger = logging.getLogger("pipelines.status")

DEFAULT_MAX_AGE = "26h"
DEFAULT_FOLD_MAX_AGE = "1h"

DATASETS = (DATASET_CONNECTEAM, DATASET_WEBHOOKS, "marts")
"""Datasets (schemas) whose tables ``status`` counts; staging views are not materialized."""


def parse_age(text: str) -> float:
    """Seconds from ``90s``, ``30m``, ``26h``, ``2d`` or a plain number of seconds.

    Raises:
        ValueError: Anything else; the message shows the accepted forms.
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", text)
    if not match:
        raise ValueError(f"age {text!r} not understood: use e.g. 90s, 30m, 26h or 2d")
    factor = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86_400}[match.group(2)]
    return float(match.group(1)) * factor


def iso(epoch: float | None) -> str | None:
    """Epoch seconds as an ISO 8601 UTC string (``None``, and a value that is no time within
    years 1..9999, give ``None``)."""
    if epoch is None:
        return None
    try:
        return datetime.fromtimestamp(float(epoch), UTC).isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError, TypeError):
        return None


@dataclass
class JobStatus:
    """The last run of one job. Times are ISO 8601 UTC; ``stale`` per its ``max_age_seconds``."""

    job: str
    last_run_at: str | None = None
    outcome: str | None = None
    duration_seconds: float | None = None
    error: str | None = None
    last_success_at: str | None = None
    max_age_seconds: float = 0.0
    stale: bool = False


@dataclass
class TableStatus:
    """One warehouse table: rows, newest provider timestamp, when a job last refreshed it.

    ``newest`` (ISO 8601 UTC) is dbt's ``max_loaded_at`` for a stream whose records carry a
    provider time (``freshness`` columns in :data:`sources.connecteam.registry.STREAMS`);
    ``freshness`` is dbt's verdict on the table (``pass``, ``warn``, ``error`` past the
    thresholds in the source's YAML, ``runtime error`` when it could not be queried), ``None``
    when dbt did not run (PostgreSQL, no warehouse yet, a table of another dataset).
    """

    dataset: str
    table: str
    rows: int | None = None
    newest: str | None = None
    refreshed_at: str | None = None
    stale: bool = False
    freshness: str | None = None


@dataclass
class FamilyStatus:
    """Webhook events of one family in the warehouse and the newest event's time (UTC)."""

    family: str
    events: int
    newest_event_at: str | None


@dataclass
class Status:
    """Everything ``wfm-sync status`` shows; ``problems`` empty means healthy."""

    checked_at: str
    warehouse: str
    project_dir: str
    """The project's home (``DLT_PROJECT_DIR`` / ``--project-dir``, else the current directory):
    ``.dlt/`` is read from it and relative paths resolve from it."""
    run_log: str
    jobs: list[JobStatus] = field(default_factory=list)
    tables: list[TableStatus] = field(default_factory=list)
    webhook_families: list[FamilyStatus] = field(default_factory=list)
    inbox: dict[str, Any] = field(default_factory=dict)
    refusals: dict[str, Any] = field(default_factory=dict)
    """Deliveries the receiver refused (401, nothing stored), from the inbox
    (:meth:`sources.webhooks.refusals.RefusalSummary.as_dict`); one since the last stored event
    is a problem."""
    pending_load_packages: dict[str, int] = field(default_factory=dict)
    rate_limit: dict[str, Any] = field(default_factory=dict)
    reconciliation: dict[str, int] = field(default_factory=dict)
    """Time activities the API and the webhooks disagree on, per kind (``api_only``: missed
    deliveries, ``webhooks_only``, ``differs``), from ``marts.fct_time_activity_reconciliation``
    as of the last model build. Shown, not counted as a problem: the marts already take the
    API's version."""
    timesheet_match: dict[str, Any] = field(default_factory=dict)
    """User-days whose worked hours match the provider's timesheet, explained, unexplained
    (:class:`pipelines.timesheet_match.TimesheetMatch`), as of the last model build; with
    ``line`` in words. Shown, not a problem."""
    untypable_rows: dict[str, int] = field(default_factory=dict)
    """Per staging model, rows holding provider values that could not be typed (left null,
    the raw value kept), as of the last model build; shown, not a problem."""
    untyped_values: dict[str, int] = field(default_factory=dict)
    """Per raw table, values the last sync kept in ``untyped_values`` (not of their column's
    type)."""
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def collect_status(
    max_age: float = parse_age(DEFAULT_MAX_AGE),
    fold_max_age: float = parse_age(DEFAULT_FOLD_MAX_AGE),
    now: float | None = None,
) -> Status:
    """Gather the status of jobs, tables, webhooks, inbox, pending loads and rate limit.

    Args:
        max_age: Seconds after which the API tables and the sync/models/publish jobs are stale.
        fold_max_age: Seconds after which the webhook fold is stale (only once webhooks are in
            use: the fold ran before or the inbox holds events).
        now: The current time, epoch seconds (default: now).

    Returns:
        A :class:`Status`. ``problems`` lists, in words, every stale table or job, every job
        whose last run failed, a sync that never ran, and webhook deliveries refused since the
        last stored event.
    """
    now = time.time() if now is None else now
    runs = read_runs()
    status = Status(
        checked_at=iso(now) or "",
        warehouse=_warehouse_label(),
        project_dir=str(settings.project_dir()),
        run_log=str(run_log_path()),
    )
    status.inbox, refusals = inbox_status(now)
    if refusals is not None:
        status.refusals = refusals.as_dict()
        if refusals.problem():
            status.problems.append(refusals.problem() or "")
    webhooks_in_use = any(r.job == "fold" for r in runs) or bool(status.inbox.get("events"))
    for job in _jobs():
        limit = fold_max_age if job == "fold" else max_age
        job_status = _job_status(job, runs, limit, now)
        status.jobs.append(job_status)
        if job_status.outcome == "failed":
            status.problems.append(f"the last {job} run failed: {job_status.error}")
        if job == "sync" and job_status.last_run_at is None:
            status.problems.append("sync has never run: run `wfm-sync sync`")
        elif job_status.stale and job_status.last_run_at and (job != "fold" or webhooks_in_use):
            status.problems.append(
                f"{job}: last success {job_status.last_success_at or 'never'}, older than "
                f"{_age_text(limit)}"
            )
    _warehouse_status(status, runs, max_age, now)
    status.pending_load_packages = _pending_packages()
    for name, count in status.pending_load_packages.items():
        if count:
            status.problems.append(
                f"{count} load package(s) of pipeline {name} wait: the next run finishes them"
            )
    last_models = _last(runs, "models", succeeded=True)
    if last_models is not None:
        status.untypable_rows = dict(last_models.details.get("untypable_rows", {}))
    last_any_sync = _last(runs, "sync")
    if last_any_sync is not None:
        status.untyped_values = dict(last_any_sync.details.get("untyped_values", {}))
    last_sync = _last(runs, "sync", succeeded=True)
    if last_sync is not None:
        status.rate_limit = {
            "at": iso(last_sync.finished_at),
            **last_sync.details.get("rate_limit_remaining", {}),
        }
    return status


def _warehouse_label() -> str:
    """``duckdb:<path>``, or ``postgresql://user:***@host:port/database`` (``postgres`` when the
    credentials are missing; the warehouse check then reports why it cannot read)."""
    if destination_name() == "duckdb":
        return f"duckdb:{warehouse_path()}"
    try:
        return postgres_target().display_url
    except ValueError:
        return destination_name()


def _jobs() -> tuple[str, ...]:
    """The jobs whose runs are checked: :data:`pipelines.runs.JOBS`, without ``publish`` on
    PostgreSQL (the snapshot and the Parquet marts are DuckDB-only; it never runs there)."""
    if destination_name() == "duckdb":
        return JOBS
    return tuple(job for job in JOBS if job != "publish")


def _last(runs: list[RunRecord], job: str, succeeded: bool = False) -> RunRecord | None:
    for record in reversed(runs):
        if record.job == job and (not succeeded or record.outcome == "succeeded"):
            return record
    return None


def _job_status(job: str, runs: list[RunRecord], max_age: float, now: float) -> JobStatus:
    last, ok = _last(runs, job), _last(runs, job, succeeded=True)
    return JobStatus(
        job=job,
        last_run_at=iso(last.started_at) if last else None,
        outcome=last.outcome if last else None,
        duration_seconds=last.duration_seconds if last else None,
        error=last.error if last else None,
        last_success_at=iso(ok.finished_at) if ok else None,
        max_age_seconds=max_age,
        stale=ok is None or now - ok.finished_at > max_age,
    )


def _refreshed(runs: list[RunRecord], table: str) -> float | None:
    """When the last successful sync that included ``table`` finished."""
    for record in reversed(runs):
        ok = record.job == "sync" and record.outcome == "succeeded"
        if ok and table in record.details.get("rows", {}):
            return record.finished_at
    return None


def _warehouse_status(status: Status, runs: list[RunRecord], max_age: float, now: float) -> None:
    """Fill ``tables`` and ``webhook_families`` from the warehouse, if it can be read."""
    if destination_name() == "duckdb" and not warehouse_path().exists():
        status.problems.append(f"no warehouse at {warehouse_path()} yet")
        return
    pipeline = build_pipeline()
    try:
        with pipeline.sql_client() as client:
            existing = _tables(client)
        freshness = _source_freshness() if existing else {}
        with pipeline.sql_client() as client:
            for table in STREAMS:
                refreshed = _refreshed(runs, table)
                entry = TableStatus(DATASET_CONNECTEAM, table, refreshed_at=iso(refreshed))
                entry.stale = refreshed is None or now - refreshed > max_age
                if (DATASET_CONNECTEAM, table) in existing:
                    entry.rows = _count(client, DATASET_CONNECTEAM, table)
                    entry.freshness, newest = freshness.get(table, (None, None))
                    entry.newest = iso(newest) if REGISTRY[table].freshness else None
                if entry.stale:
                    status.problems.append(
                        f"table {DATASET_CONNECTEAM}.{table}: last synced "
                        f"{entry.refreshed_at or 'never'}, older than {_age_text(max_age)}"
                    )
                status.tables.append(entry)
            for dataset, table in sorted(existing):
                if dataset != DATASET_CONNECTEAM and not table.startswith("_dlt"):
                    rows = _count(client, dataset, table)
                    status.tables.append(TableStatus(dataset, table, rows))
            if (DATASET_WEBHOOKS, "events") in existing:
                status.webhook_families = _families(client)
            if ("marts", "fct_time_activity_reconciliation") in existing:
                status.reconciliation = _reconciliation(client)
            if ("marts", "fct_daily_hours") in existing:
                match = read_timesheet_match(lambda sql: _rows(client, sql))
                status.timesheet_match = {**match.as_dict(), "line": match.line()}
    except Exception as exc:  # noqa: BLE001 - a busy or unreachable warehouse is reported
        reason = str(exc).splitlines()[0]
        if "lock" in reason.lower():
            reason = "in use by a running job (DuckDB allows one writer process)"
        status.problems.append(f"warehouse not readable: {reason}")


def _tables(client: Any) -> set[tuple[str, str]]:
    placeholders = ", ".join(["%s"] * len(DATASETS))
    with client.execute_query(
        "select table_schema, table_name from information_schema.tables "
        f"where table_type = 'BASE TABLE' and table_schema in ({placeholders})",
        *DATASETS,
    ) as cursor:
        return {(str(s), str(t)) for s, t in cursor.fetchall()}


def _source_freshness() -> dict[str, tuple[str, float | None]]:
    """``dbt source freshness`` of source ``connecteam`` on the warehouse (DuckDB read-only, or
    PostgreSQL through :func:`pipelines.models.run_dbt`): per table, dbt's status and
    ``max_loaded_at`` (epoch seconds, ``None`` when dbt got none).

    A table dbt could not query (absent, a missing or non-numeric ``loaded_at_field`` column)
    has status ``runtime error`` and no time. dbt prints nothing (the command's own output
    stays JSON-clean) and writes its artifacts to ``freshness/`` in
    :func:`pipelines.models.target_dir`, apart from the build's.

    Raises:
        RuntimeError: The warehouse could not be opened (held by a writer, PostgreSQL not
            reachable): dbt's message.
        ValueError: PostgreSQL credentials missing.
    """
    target = target_dir() / "freshness"
    result = run_dbt(
        ["source", "freshness", "--select", f"source:{DATASET_CONNECTEAM}",
         "--target-path", str(target), "--log-level", "none"],
        variables={"access_mode": "read_only"},
    )  # fmt: skip
    found: dict[str, tuple[str, float | None]] = {}
    for node_result in getattr(result.result, "results", None) or []:
        node = node_result.node
        loaded = getattr(node_result, "max_loaded_at", None)
        verdict = getattr(node_result.status, "value", node_result.status)
        found[node.name] = (
            str(verdict),
            loaded.timestamp() if isinstance(loaded, datetime) else None,
        )
    if not found and result.exception is not None:
        raise RuntimeError(str(result.exception))
    return found


def _count(client: Any, dataset: str, table: str) -> int:
    qualified = f"{client.escape_column_name(dataset)}.{client.escape_column_name(table)}"
    with client.execute_query(f"select count(*) from {qualified}") as cursor:
        (rows,) = cursor.fetchone()
    return int(rows)


def _families(client: Any) -> list[FamilyStatus]:
    qualified = f"{client.escape_column_name(DATASET_WEBHOOKS)}.events"
    with client.execute_query(
        f"select family, count(*), max(event_timestamp) from {qualified} "
        "group by family order by family"
    ) as cursor:
        return [
            FamilyStatus(str(f), int(n), iso(t.timestamp()) if t else None)
            for f, n, t in cursor.fetchall()
        ]


def _rows(client: Any, sql: str) -> list[tuple[Any, ...]]:
    with client.execute_query(sql) as cursor:
        return [tuple(row) for row in cursor.fetchall()]


def _reconciliation(client: Any) -> dict[str, int]:
    with client.execute_query(
        "select data_source, sum(activity_count) from marts.fct_time_activity_reconciliation "
        "group by data_source order by data_source"
    ) as cursor:
        return {str(kind): int(n) for kind, n in cursor.fetchall()}


def _pending_packages() -> dict[str, int]:
    """Load packages extracted or normalized but not yet loaded, per dlt pipeline."""
    pending = {}
    for name, dataset in (("connecteam", DATASET_CONNECTEAM), ("webhooks", DATASET_WEBHOOKS)):
        if not (default_pipelines_dir() / name).exists():  # never ran: nothing to create here
            pending[name] = 0
            continue
        pipeline = build_pipeline(pipeline_name=name, dataset_name=dataset)
        pending[name] = len(pipeline.list_extracted_load_packages()) + len(
            pipeline.list_normalized_load_packages()
        )
    return pending


def _age_text(seconds: float) -> str:
    for unit, size in (("d", 86_400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"
