"""The ``sync`` job: load one Connecteam account's API streams into its warehouse dataset
(``connecteam`` for the ``default`` account, ``connecteam_<account>`` for another)."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import dlt
from dlt.extract.exceptions import PipeException
from dlt.pipeline.exceptions import PipelineStepFailed

from core.project import Project
from sources.connecteam import (
    ClientStats,
    ConnecteamAPIError,
    ConnecteamConfigError,
    ProviderUnavailableError,
    RateLimitExhaustedError,
    connecteam_source,
    find_connecteam_error,
)
from sources.connecteam.arrow_rows import UNTYPED_COLUMN, hints, without_nul
from sources.connecteam.contract import QUARANTINE_COLUMNS, QUARANTINE_TABLE, Quarantine
from sources.connecteam.loaded import one_sql_client
from sources.connecteam.registry import OAUTH_TOKEN_PATH
from sources.connecteam.registry import STREAMS as REGISTRY

from .process_memory import collecting_new_objects_only, few_malloc_arenas, release_freed_memory
from .runs import records_run
from .state_history import prune_after_load
from .unique_keys import guard_unique_keys
from .warehouse import (
    DATASET_CONNECTEAM,
    build_pipeline,
    discard_unloaded_warehouse,
    finish_pending_loads,
    loader_file_format,
    warehouse_location,
    write_each_batch,
)
from .writers import load_turn, syncs_beside, writes_warehouse

logger = logging.getLogger("pipelines.sync")

STREAMS: tuple[str, ...] = tuple(REGISTRY)
"""Every stream of the ``connecteam`` source (= table in dataset ``connecteam``), in the
registry's order (:data:`sources.connecteam.registry.STREAMS`)."""


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
        rate_limit_remaining: The budget left at the last answer (``minute``, ``day``).
        failed_streams: Streams that failed this run while the others loaded, with the reason
            (endpoint, status and the provider's answer; never a secret); their tables keep
            what earlier runs loaded, and their state did not advance.
        skipped_parents: Parents that vanished between their listing and their child request,
            e.g. ``"shifts: schedulerId 9001"``.
        untyped_values: Per table, values kept in its ``untyped_values`` column because they did
            not fit their column's type.
        repeated_keys: Per table, rows not loaded because a row with the same key came earlier
            in the same run (:mod:`~.unique_keys`; a source deriving a row twice).
        quarantined: Per stream, listed items that could not be loaded (not an object, a
            missing, null or mistyped key, a key listed twice), kept whole in the table
            ``connecteam.quarantine`` (:mod:`sources.connecteam.contract`).
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
    failed_streams: dict[str, str] = field(default_factory=dict)
    skipped_parents: list[str] = field(default_factory=list)
    untyped_values: dict[str, int] = field(default_factory=dict)
    repeated_keys: dict[str, int] = field(default_factory=dict)
    quarantined: dict[str, int] = field(default_factory=dict)

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
            failed_streams={**self.failed_streams, **other.failed_streams},
            skipped_parents=self.skipped_parents + other.skipped_parents,
            untyped_values=_add(self.untyped_values, other.untyped_values),
            repeated_keys=_add(self.repeated_keys, other.repeated_keys),
            quarantined=_add(self.quarantined, other.quarantined),
        )


def _add(a: dict[str, int], b: dict[str, int]) -> dict[str, int]:
    return {key: a.get(key, 0) + b.get(key, 0) for key in {**a, **b}}


def _describe_sync(summary: SyncSummary) -> dict[str, Any]:
    return {
        "rows": summary.rows,
        "requests": summary.total_requests,
        "retries": summary.retries,
        "throttled": summary.throttled,
        "rate_limit_remaining": summary.rate_limit_remaining,
        "warehouse": summary.warehouse,
        "failed_streams": summary.failed_streams,
        "skipped_parents": summary.skipped_parents,
        "untyped_values": summary.untyped_values,
        "repeated_keys": summary.repeated_keys,
        "quarantined": summary.quarantined,
    }


def _sync_problem(summary: SyncSummary) -> str | None:
    if not summary.failed_streams:
        return None
    return "streams failed: " + "; ".join(
        f"{s}: {why}" for s, why in summary.failed_streams.items()
    )


@records_run("sync", _describe_sync, _sync_problem)
@writes_warehouse("sync")
def run_sync(
    streams: Sequence[str] = STREAMS,
    *,
    project: Project,
    pipeline: dlt.Pipeline | None = None,
    **source_options: Any,
) -> SyncSummary:
    """Sync the given streams of ``project``'s account into its dataset
    (:attr:`~core.project.Project.dataset`: ``connecteam``, ``connecteam_<account>``).

    Finishes the load packages an interrupted run left behind first, then extracts, normalizes
    and loads (Parquet files, merged on each stream's primary key), then keeps only the newest
    versions of the dlt state in the warehouse (:func:`~.state_history.prune_after_load`).
    One stream's trouble is that stream's: when a stream fails in the extract (an answer of an
    unexpected shape, a refused request), the extract is repeated without it, the others load,
    and the failure is reported in :attr:`SyncSummary.failed_streams` (nothing of the failed
    stream is loaded and its state does not advance). Failures no stream can escape (credentials
    refused, the rate-limit budget spent) still fail the run.

    Args:
        streams: Any of :data:`STREAMS` (default all).
        pipeline: The dlt pipeline; default ``project``'s (:func:`~.warehouse.build_pipeline`).
        project: Where to load, the source's configuration (:attr:`~core.project.Project.
            source`) and the run's instant (:attr:`~core.project.Project.now`).
        **source_options: Over the project's source configuration, passed to
            :func:`sources.connecteam.connecteam_source` (e.g. ``shifts_days_back``,
            ``allow_insecure``: the commands' ``--allow-insecure``).

    Returns:
        A :class:`SyncSummary`.

    Raises:
        ValueError: An unknown stream name.
        sources.connecteam.ConnecteamError: Credentials refused (endpoint and status named,
            never a secret), the rate-limit budget spent, or plain ``http://`` elsewhere without
            ``allow_insecure`` (before any request).
        dlt.pipeline.exceptions.PipelineStepFailed: A step failed; run again to resume.
    """
    unknown = sorted(set(streams) - set(STREAMS))
    if unknown:
        raise ValueError(f"unknown stream(s) {unknown}; choose from {list(STREAMS)}")
    started = time.monotonic()
    pipeline = pipeline or build_pipeline(project=project)
    write_each_batch(pipeline, "connecteam")
    source_options = {**project.source.arguments(), **source_options, "now": project.now}
    with load_turn(project):
        resumed = finish_pending_loads(pipeline)
    stats = ClientStats()
    logger.info("syncing %s into %s", ", ".join(streams), pipeline.dataset_name)
    # dlt opens the destination before the extract: a DuckDB file this run makes and loads
    # nothing into is removed again (a run failing before its load leaves no warehouse)
    fresh = project.destination == "duckdb" and not project.warehouse.exists()
    try:
        failed = _extract_and_normalize(pipeline, project, streams, stats, source_options)
    except BaseException:
        if fresh and not syncs_beside(project):
            discard_unloaded_warehouse(project)
        raise
    with load_turn(project):  # accounts syncing side by side load one at a time (DuckDB)
        info = pipeline.load()  # None when nothing was extracted (every stream failed)
        if info is not None:
            info.raise_on_failed_jobs()
            prune_after_load(pipeline, project)
    if info is None and fresh and not syncs_beside(project):
        discard_unloaded_warehouse(project)
    summary = _summary(pipeline, streams, stats, info, failed, resumed, started)
    summary.warehouse = warehouse_location(pipeline, project)
    return summary


def _extract_and_normalize(
    pipeline: dlt.Pipeline, project: Project, streams: Sequence[str], stats: ClientStats,
    source_options: dict[str, Any],
) -> dict[str, str]:  # fmt: skip
    """``pipeline.run``'s steps before the load, with the memory of each step handed back
    before the next one (the collector looking only at what the steps made,
    :func:`~.process_memory.collecting_new_objects_only`): the destination's state, the
    streams' extract (a failing stream dropped, :func:`_extract_isolating_failures`), the
    quarantine's, and the normalize.

    Returns:
        ``{stream: reason}`` for the streams that failed.
    """
    few_malloc_arenas()  # before the extract's threads start
    with collecting_new_objects_only():
        pipeline.sync_destination()
        with one_sql_client(pipeline):  # what each stream reads of the warehouse
            failed = _extract_isolating_failures(pipeline, project, streams, stats, source_options)
        stats.quarantine.discard(set(failed))
        _extract_quarantine(pipeline, project, stats.quarantine)
        release_freed_memory()
        pipeline.normalize()
        release_freed_memory()
    return failed


def _summary(
    pipeline: dlt.Pipeline, streams: Sequence[str], stats: ClientStats, info: Any,
    failed: dict[str, str], resumed: int, started: float,
) -> SyncSummary:  # fmt: skip
    """The run's :class:`SyncSummary`: rows per stream from dlt's normalize counts, the client's
    requests, retries and pacing, the load ids of ``info`` (``None``: nothing loaded), and the
    seconds since ``started`` (``time.monotonic``)."""
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
        load_ids=list(info.loads_ids) if info is not None else [],
        resumed_packages=resumed,
        dataset=pipeline.dataset_name,
        rate_limit_remaining={"minute": budget.minute_remaining, "day": budget.day_remaining},
        failed_streams=failed,
        skipped_parents=list(stats.skipped_parents),
        untyped_values=dict(stats.untyped_values),
        repeated_keys=dict(stats.repeated_keys),
        quarantined=stats.quarantine.counts(),
    )


def _extract_isolating_failures(
    pipeline: dlt.Pipeline,
    project: Project,
    streams: Sequence[str],
    stats: ClientStats,
    source_options: dict[str, Any],
) -> dict[str, str]:
    """Extract ``streams``; a stream that fails is dropped and the rest extracted again.

    dlt discards a failed extract whole (no package, no state), so the repeat starts clean.

    Returns:
        ``{stream: reason}`` for the streams that failed.

    Raises:
        PipelineStepFailed: A failure that is not one stream's (no credentials, credentials
            refused, rate-limit budget spent), or one no stream can be blamed for.
    """
    import pandas  # noqa: F401 - pyarrow imports it lazily; the parallel resources would race

    failed: dict[str, str] = {}
    remaining = list(streams)
    while remaining:
        source = connecteam_source(stats=stats, **source_options).with_resources(*remaining)
        stats.repeated_keys.clear()  # counted again by the repeat
        normalize = source.schema.naming.normalize_identifier
        for resource in source.selected_resources.values():
            if project.destination == "postgres":
                resource.add_map(replacing_nul(resource.name))
            guard_unique_keys(resource, normalize, stats.repeated_keys)
        try:
            pipeline.extract(source, loader_file_format=loader_file_format(project))
            return failed
        except PipelineStepFailed as exc:
            stream, reason = _failed_stream(exc, remaining)
            if stream is None:
                raise
            failed[stream] = reason
            remaining.remove(stream)
            logger.error(
                "%s failed: %s; extracting the other streams again without it", stream, reason
            )
            logger.debug("%s failed with this traceback:", stream, exc_info=exc)  # -v
    return failed


def _extract_quarantine(pipeline: dlt.Pipeline, project: Project, quarantine: Quarantine) -> None:
    """Extract the items ``quarantine`` holds into table ``connecteam.quarantine`` (merged on
    ``quarantine_key``: an item quarantined again updates its ``seen_at``); nothing when empty.
    On PostgreSQL U+0000 in an item becomes U+FFFD (:func:`without_nul`)."""
    now = int(project.now)
    rows = [item.row(now) for item in quarantine.items()]
    if not rows:
        return
    if project.destination == "postgres":
        rows = [without_nul(row)[0] for row in rows]
    columns = hints(QUARANTINE_COLUMNS)
    columns.pop(UNTYPED_COLUMN)
    resource = dlt.resource(
        rows, name=QUARANTINE_TABLE, write_disposition="merge", primary_key="quarantine_key",
        columns=columns,
    )  # fmt: skip
    file_format = loader_file_format(project)
    schema = pipeline.schemas.get(DATASET_CONNECTEAM)
    if schema is None:  # no stream loaded yet: the table starts the dataset's schema
        pipeline.extract(resource, loader_file_format=file_format)
    else:
        pipeline.extract(resource, schema=schema, loader_file_format=file_format)


def replacing_nul(resource: str) -> Any:
    """A map step for one resource when loading into PostgreSQL, whose ``text`` and ``jsonb``
    refuse U+0000: every string's U+0000 becomes U+FFFD (:func:`without_nul`); each item that
    held some is logged with the count, so the value is kept, marked and counted instead of
    failing the load."""

    def replace(item: Any) -> Any:
        cleaned, changed = without_nul(item)
        if changed:
            logger.warning(
                "%s: %d provider strings held U+0000, which PostgreSQL cannot store; "
                "loaded with U+FFFD in its place", resource, changed,
            )  # fmt: skip
        return cleaned

    return replace


def _failed_stream(exc: BaseException, streams: list[str]) -> tuple[str | None, str]:
    """The stream to blame for a failed extract and why, or ``(None, "")`` when the failure is
    not one stream's: a setting, a spent rate-limit budget, a provider down past its outage
    budget, refused credentials."""
    cause = find_connecteam_error(exc)
    if isinstance(
        cause, ConnecteamConfigError | RateLimitExhaustedError | ProviderUnavailableError
    ):
        return None, ""
    if isinstance(cause, ConnecteamAPIError) and (
        cause.status == 401 or cause.endpoint == OAUTH_TOKEN_PATH
    ):
        return None, ""  # every stream needs the credentials and the token
    blamed: str | None = None
    root: BaseException | None = exc
    seen: set[int] = set()
    while root is not None and id(root) not in seen:
        seen.add(id(root))
        if isinstance(root, PipeException) and root.pipe_name in streams:
            blamed = root.pipe_name
        nxt = root.__cause__ or root.__context__
        if nxt is None:
            break
        root = nxt
    reason = cause or root
    return blamed, f"{type(reason).__name__}: {reason}".splitlines()[0][:500]
