"""Prefect flow ``nightly_sync``: the API sync as three tasks with declared retries.

Tasks run one after another (DuckDB takes one writer at a time): ``users``, ``forms``, then
``schedulers`` with their ``shifts`` (one request lists the schedulers for both). A task that fails
on a transient problem is retried; one that fails on credentials or a refused request is not,
because retrying cannot fix it. Secrets are never flow or task parameters (Prefect stores those):
the tasks read them from dlt config.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger, task
from prefect.client.schemas.objects import TaskRun
from prefect.states import State
from prefect.tasks import Task

from pipelines import SyncSummary, run_sync
from sources.connecteam import (
    ConnecteamAPIError,
    ConnecteamConfigError,
    RateLimitExhaustedError,
    find_connecteam_error,
)

TASK_GROUPS: tuple[tuple[str, ...], ...] = (("users",), ("forms",), ("schedulers", "shifts"))


def _worth_retrying(task: Task[..., Any], task_run: TaskRun, state: State[Any]) -> bool:
    """Retry transient failures only: not bad credentials, refused parameters or a spent budget."""
    try:
        state.result()
    except Exception as exc:  # noqa: BLE001 - classify whatever the task raised
        cause = find_connecteam_error(exc)
        if isinstance(cause, ConnecteamConfigError | RateLimitExhaustedError):
            return False
        if isinstance(cause, ConnecteamAPIError):
            return cause.status is None or cause.status >= 500 or cause.status == 429
    return True


@task(
    name="sync_streams",
    task_run_name="sync-{label}",
    retries=2,
    retry_delay_seconds=[10, 60],
    retry_condition_fn=_worth_retrying,
)
def sync_streams(
    streams: tuple[str, ...], label: str, source_options: dict[str, Any]
) -> SyncSummary:
    """Load ``streams`` into dataset ``connecteam``; resumes an interrupted load on retry."""
    logger = get_run_logger()
    summary = run_sync(streams, **source_options)
    logger.info(
        "%s: %s rows loaded, %d requests, %.1f s",
        label,
        ", ".join(f"{t}={n}" for t, n in summary.rows.items()),
        summary.total_requests,
        summary.duration_seconds,
    )
    return summary


@flow(name="nightly_sync", flow_run_name="nightly-sync-{streams_label}", log_prints=True)
def nightly_sync(
    streams: tuple[str, ...] = ("users", "forms", "schedulers", "shifts"),
    streams_label: str = "all",
    source_options: dict[str, Any] | None = None,
) -> SyncSummary:
    """Sync the Connecteam account into the warehouse, one task per stream group.

    Args:
        streams: Streams to sync (default all four).
        streams_label: Shown in the flow run's name.
        source_options: Non-secret options for the source (e.g. ``shifts_days_back``).

    Returns:
        The combined :class:`pipelines.SyncSummary` of the tasks.
    """
    summary = SyncSummary()
    for group in TASK_GROUPS:
        selected = tuple(s for s in group if s in streams)
        if selected:
            summary = summary.merge(
                sync_streams(
                    selected, label="+".join(selected), source_options=source_options or {}
                )
            )
    return summary
