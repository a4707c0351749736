"""The ``sync`` job: load the Connecteam API's streams into the warehouse dataset ``connecteam``."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import dlt

from sources.connecteam import ClientStats, connecteam_source

from .runs import records_run
from .warehouse import (
    DATASET_CONNECTEAM,
    build_pipeline,
    finish_pending_loads,
    loader_file_format,
    release_arrow_memory,
    warehouse_location,
    writes_warehouse,
)

logger = logging.getLogger("pipelines.sync")

STREAMS = (
    "users",
    "forms",
    "schedulers",
    "shifts",
    "user_documents",
    "time_clocks",
    "time_activities",
    "timesheets",
    "form_submissions",
    "jobs",
    "time_off_requests",
    "task_boards",
    "tasks",
    "user_custom_field_definitions",
)
"""Every stream of the ``connecteam`` source (= table in dataset ``connecteam``)."""


@dataclass
class SyncSummary:
    """What one sync did.

    Attributes:
        rows: Rows loaded in this run, per table (new, changed and deleted-marked rows).
        requests: Requests sent, per endpoint path template (retries included).
        retries: Requests repeated after 429, 5xx, timeouts or dropped connections.
        throttled: 429 answers received.
        paced_seconds: Seconds spent waiting for the rate-limit budget.
        duration_seconds: Wall time of the run.
        load_ids: dlt load ids written by the run (empty when nothing changed).
        resumed_packages: Load packages of an interrupted earlier run that were finished first.
        warehouse: Where the data went (no credentials), e.g. ``duckdb:data/warehouse.duckdb``.
        dataset: The dataset (schema) name.
    """

    rows: dict[str, int] = field(default_factory=dict)
    requests: dict[str, int] = field(default_factory=dict)
    retries: int = 0
    throttled: int = 0
    paced_seconds: float = 0.0
    duration_seconds: float = 0.0
    load_ids: list[str] = field(default_factory=list)
    resumed_packages: int = 0
    warehouse: str = ""
    dataset: str = DATASET_CONNECTEAM
    rate_limit_remaining: dict[str, int | None] = field(default_factory=dict)

    @property
    def total_requests(self) -> int:
        """All requests sent to the provider's list endpoints."""
        return sum(self.requests.values())

    def merge(self, other: SyncSummary) -> SyncSummary:
        """Combine the summaries of two runs (e.g. two tasks of one flow)."""
        rows = dict(self.rows)
        for table, n in other.rows.items():
            rows[table] = rows.get(table, 0) + n
        requests = dict(self.requests)
        for path, n in other.requests.items():
            requests[path] = requests.get(path, 0) + n
        return SyncSummary(
            rows=rows,
            requests=requests,
            retries=self.retries + other.retries,
            throttled=self.throttled + other.throttled,
            paced_seconds=self.paced_seconds + other.paced_seconds,
            duration_seconds=self.duration_seconds + other.duration_seconds,
            load_ids=self.load_ids + other.load_ids,
            resumed_packages=self.resumed_packages + other.resumed_packages,
            warehouse=other.warehouse or self.warehouse,
            dataset=self.dataset,
            rate_limit_remaining=other.rate_limit_remaining or self.rate_limit_remaining,
        )


def _describe_sync(summary: SyncSummary) -> dict[str, Any]:
    return {
        "rows": summary.rows,
        "requests": summary.total_requests,
        "retries": summary.retries,
        "throttled": summary.throttled,
        "rate_limit_remaining": summary.rate_limit_remaining,
        "warehouse": summary.warehouse,
    }


@records_run("sync", _describe_sync)
@writes_warehouse("sync")
def run_sync(
    streams: Sequence[str] = STREAMS,
    *,
    pipeline: dlt.Pipeline | None = None,
    **source_options: Any,
) -> SyncSummary:
    """Sync the given streams of the configured Connecteam account into the warehouse.

    Finishes the load packages an interrupted run left behind first, then extracts, normalizes
    and loads (Parquet files, merged on each stream's primary key).

    Args:
        streams: Any of ``users``, ``forms``, ``schedulers``, ``shifts``.
        pipeline: The dlt pipeline; default :func:`pipelines.warehouse.build_pipeline`.
        **source_options: Passed to :func:`sources.connecteam.connecteam_source` (e.g.
            ``base_url``, ``shifts_days_back``); anything not given is read from dlt config.

    Returns:
        A :class:`SyncSummary`.

    Raises:
        ValueError: An unknown stream name.
        sources.connecteam.ConnecteamError: The provider refused the credentials or a request
            (the message names the endpoint and status, never a secret), or kept failing.
        dlt.pipeline.exceptions.PipelineStepFailed: Extract, normalize or load failed; run again
            to resume.
    """
    unknown = sorted(set(streams) - set(STREAMS))
    if unknown:
        raise ValueError(f"unknown stream(s) {unknown}; choose from {list(STREAMS)}")
    started = time.monotonic()
    pipeline = pipeline or build_pipeline()
    resumed = finish_pending_loads(pipeline)
    stats = ClientStats()
    source = connecteam_source(stats=stats, **source_options).with_resources(*streams)
    logger.info("syncing %s into %s", ", ".join(streams), pipeline.dataset_name)
    # pipeline.run's steps, with the memory of each step handed back before the next one
    pipeline.sync_destination()
    pipeline.extract(source, loader_file_format=loader_file_format())
    release_arrow_memory()
    pipeline.normalize()
    release_arrow_memory()
    info = pipeline.load()
    info.raise_on_failed_jobs()
    trace = pipeline.last_trace
    normalize = trace.last_normalize_info if trace else None
    rows = {
        table: count
        for table, count in (normalize.row_counts if normalize else {}).items()
        if not table.startswith("_dlt")
    }
    budget = stats.rate_limit
    return SyncSummary(
        rows={s: rows.get(s, 0) for s in streams},
        requests=dict(stats.requests),
        retries=stats.retries,
        throttled=stats.throttled,
        paced_seconds=round(stats.paced_seconds, 2),
        duration_seconds=round(time.monotonic() - started, 2),
        load_ids=list(info.loads_ids),
        resumed_packages=resumed,
        warehouse=warehouse_location(pipeline),
        dataset=pipeline.dataset_name,
        rate_limit_remaining={"minute": budget.minute_remaining, "day": budget.day_remaining},
    )
