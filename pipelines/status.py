"""The ``status`` job: one look at whether the warehouse is fresh and the jobs are healthy.

Reads, never writes: the run log (:mod:`pipelines.runs`), the warehouse (through the dlt
pipeline's SQL client, so DuckDB and PostgreSQL alike), the webhook inbox and the pipelines'
working directories. The newest provider time of each API table follows the source's
freshness rules (``loaded_at_field`` in ``sql/models/staging/connecteam/
_connecteam__sources.yml``), read by SQL in the same connection (:mod:`.source_freshness`; dbt is
not started); for a table or column that does not exist or a column that is not a number, a
table has no newest time. A DuckDB warehouse held by a running job is reported as busy, not as
an error; everything else is still shown. On PostgreSQL the warehouse is shown as its URL with
the password hidden, and the ``publish`` job (DuckDB only) is not listed.
"""

from __future__ import annotations

import logging
import time

from core.project import DEFAULT_ACCOUNT, Project, account_dataset
from core.settings import project_dir

from .fold import DATASET_WEBHOOKS
from .inbox_status import inbox_status
from .runs import JOBS, RunRecord, read_runs
from .status_report import DEFAULT_FOLD_MAX_AGE as DEFAULT_FOLD_MAX_AGE
from .status_report import DEFAULT_MAX_AGE as DEFAULT_MAX_AGE
from .status_report import JobStatus, Status, age_text, iso
from .status_report import parse_age as parse_age
from .warehouse import build_pipeline, postgres_target
from .warehouse_status import warehouse_status

logger = logging.getLogger("pipelines.status")


def collect_status(
    max_age: float = parse_age(DEFAULT_MAX_AGE),
    fold_max_age: float = parse_age(DEFAULT_FOLD_MAX_AGE),
    now: float | None = None,
    *,
    project: Project,
) -> Status:
    """Gather the status of jobs, tables, webhooks, inbox, pending loads and rate limit.

    Args:
        max_age: Seconds after which the API tables and the sync/models/publish jobs are stale.
        fold_max_age: Seconds after which the webhook fold is stale (only once webhooks are in
            use: the fold ran before or the inbox holds events).
        now: The time ages are measured up to, epoch seconds (default: the real time, as the
            runs and loads it compares with are stamped; not the project's ``now``, which
            ``WFM_SYNC_NOW`` may pin for a replay).
        project: The project looked at.

    Returns:
        A :class:`Status`. ``problems`` lists, in words, every stale table or job, every job
        whose last run failed, a sync that never ran, and webhook deliveries refused since the
        last stored event.
    """
    now = time.time() if now is None else now
    runs = read_runs(project.paths.run_log)
    status = Status(
        checked_at=iso(now) or "",
        warehouse=_warehouse_label(project),
        project_dir=str(project_dir()),
        run_log=str(project.paths.run_log),
    )
    status.inbox, refusals = inbox_status(now, project.webhooks.url)
    if "full" in status.inbox:
        status.problems.append(f"the webhook inbox cannot store events: {status.inbox['full']}")
    if refusals is not None:
        status.refusals = refusals.as_dict()
        if refusals.problem():
            status.problems.append(refusals.problem() or "")
    several = len(project.account_names) > 1  # then each account's sync is a job of its own
    jobs = tuple(j for j in _jobs(project) if not (several and j == "sync"))
    _job_statuses(status, runs, (max_age, fold_max_age), now, jobs)
    _account_sync_statuses(status, runs, max_age, now, project.account_names)
    warehouse_status(status, runs, max_age, now, project)
    status.pending_load_packages = _pending_packages(project)
    for name, count in status.pending_load_packages.items():
        if count:
            status.problems.append(
                f"{count} load package(s) of pipeline {name} wait: the next run finishes them"
            )
    _last_run_details(status, runs)
    return status


def _job_statuses(
    status: Status, runs: list[RunRecord], ages: tuple[float, float], now: float,
    jobs: tuple[str, ...],
) -> None:  # fmt: skip
    """Add each of ``jobs``' last run to ``status.jobs``, and a problem for a failed last run, a
    sync that never ran, and a job whose last success is older than its age (``ages``: the
    other jobs' and the fold's; the fold's only once webhooks are in use: the fold ran before or
    the inbox holds events)."""
    max_age, fold_max_age = ages
    webhooks_in_use = any(r.job == "fold" for r in runs) or bool(status.inbox.get("events"))
    for job in jobs:
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
                f"{age_text(limit)}"
            )


def _account_sync_statuses(
    status: Status, runs: list[RunRecord], max_age: float, now: float, accounts: tuple[str, ...]
) -> None:
    """With several accounts, each account's sync in place of the ``sync`` job: listed as
    ``sync:<account>``, with a problem for an account whose
    last sync failed, never ran, or last succeeded longer than ``max_age`` ago (a sync logged
    without an account was the ``default`` account's)."""
    if len(accounts) < 2:
        return
    for account in accounts:
        own = [r for r in runs if r.job == "sync" and (r.account or DEFAULT_ACCOUNT) == account]
        job_status = _job_status("sync", own, max_age, now)
        job_status.job = f"sync:{account}"
        status.jobs.append(job_status)
        if job_status.outcome == "failed":
            status.problems.append(f"the last sync of account {account} failed: {job_status.error}")
        elif job_status.last_run_at is None:
            status.problems.append(
                f"account {account} has never been synced: run `wfm-sync sync --accounts {account}`"
            )
        elif job_status.stale:
            status.problems.append(
                f"account {account}: last successful sync {job_status.last_success_at or 'never'}"
                f", older than {age_text(max_age)}"
            )


def _last_run_details(status: Status, runs: list[RunRecord]) -> None:
    """What the last runs recorded: untypable rows of the last model build, untyped values and
    quarantined items of the last sync, the rate limit the last successful sync left."""
    last_models = _last(runs, "models", succeeded=True)
    if last_models is not None:
        status.untypable_rows = dict(last_models.details.get("untypable_rows", {}))
    status.untyped_values = _latest_per_stream(runs, "untyped_values")
    status.quarantined = _latest_per_stream(runs, "quarantined")
    last_sync = _last(runs, "sync", succeeded=True)
    if last_sync is not None:
        status.rate_limit = {
            "at": iso(last_sync.finished_at),
            **last_sync.details.get("rate_limit_remaining", {}),
        }


def _warehouse_label(project: Project) -> str:
    """``duckdb:<path>``, or ``postgresql://user:***@host:port/database`` (``postgres`` when the
    credentials are missing; the warehouse check then reports why it cannot read)."""
    if project.destination == "duckdb":
        return f"duckdb:{project.warehouse}"
    try:
        return postgres_target().display_url
    except ValueError:
        return project.destination


def _jobs(project: Project) -> tuple[str, ...]:
    """The jobs whose runs are checked: :data:`pipelines.runs.JOBS`, without ``publish`` on
    PostgreSQL (the snapshot and the Parquet marts are DuckDB-only; it never runs there)."""
    if project.destination == "duckdb":
        return JOBS
    return tuple(job for job in JOBS if job != "publish")


def _latest_per_stream(runs: list[RunRecord], key: str) -> dict[str, int]:
    """Per stream, the count under ``key`` of a sync's details (``untyped_values``,
    ``quarantined``) as the newest sync of that stream recorded it (the nightly syncs its task
    groups one record each); streams counting none left out."""
    counts: dict[str, int] = {}
    seen: set[str] = set()
    for record in reversed(runs):
        if record.job != "sync":
            continue
        recorded = record.details.get(key, {})
        for stream in [*record.details.get("rows", {}), *recorded]:
            if stream not in seen:
                seen.add(stream)
                if recorded.get(stream):
                    counts[stream] = int(recorded[stream])
    return dict(sorted(counts.items()))


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


def _pending_packages(project: Project) -> dict[str, int]:
    """Load packages extracted or normalized but not yet loaded, per dlt pipeline (each
    account's, and the webhook fold's)."""
    pending = {}
    datasets = [account_dataset(account) for account in project.account_names]
    for name, dataset in [*((d, d) for d in datasets), ("webhooks", DATASET_WEBHOOKS)]:
        if not (project.paths.pipelines_dir / name).exists():  # never ran: nothing to create
            pending[name] = 0
            continue
        pipeline = build_pipeline(pipeline_name=name, dataset_name=dataset, project=project)
        pending[name] = len(pipeline.list_extracted_load_packages()) + len(
            pipeline.list_normalized_load_packages()
        )
    return pending
