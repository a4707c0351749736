"""The ``backfill`` job: re-pull a past period of windowed streams on demand, in the provider's
window sizes, into the same raw tables the nightly sync loads (dataset ``connecteam``).

A period of UTC dates is split per stream into chunks no wider than the stream's request
window (:attr:`sources.connecteam.registry.Window.max_days`; :data:`DEFAULT_CHUNK_DAYS` for a
stream without one). Each chunk is pulled through the sync's client (rate-limit pacing, retries)
and row mappings (:mod:`pipelines.backfill_pulls`), then extracted, normalized and loaded on its
own (merged on the stream's key: a chunk pulled twice never duplicates a row), and its end is
noted in the backfill pipeline's dlt state (:data:`BACKFILL_PIPELINE`), which commits with the
chunk's load. A run of the same period after a kill finishes the load package the kill left,
skips the chunks done and pulls the rest; once every chunk of a stream's period is done, the
next backfill of that period pulls it all again.

The nightly's own state (pipeline ``connecteam``: window diffs, cursors, digests) is neither
read nor written, and nothing is marked deleted: a backfill adds and updates, the nightly's
windows alone decide what vanished.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import dlt
from dlt.common.normalizers.naming.snake_case import NamingConvention as SnakeCase
from dlt.common.schema import Schema
from dlt.sources import DltResource

from core.project import Project
from sources.connecteam.arrow_rows import ArrowRows, hints
from sources.connecteam.config import ConnecteamSourceConfiguration, client_from_config
from sources.connecteam.loaded import one_sql_client
from sources.connecteam.registry import STREAMS, oauth_scopes
from sources.connecteam.windows import date_windows

from .backfill_pulls import PULLS, Chunk, PullRun
from .process_memory import collecting_new_objects_only, release_freed_memory
from .runs import records_run
from .sync import replacing_nul
from .unique_keys import guard_unique_keys
from .warehouse import (
    build_pipeline,
    finish_pending_loads,
    loader_file_format,
    warehouse_location,
)
from .writers import warehouse_writer

logger = logging.getLogger("pipelines.backfill")

BACKFILL_PIPELINE = "connecteam_backfill"
"""The backfill's dlt pipeline (and schema): its own working folder and state beside the
nightly's ``connecteam``, loading into the same dataset."""
DEFAULT_CHUNK_DAYS = 31
"""Days of a chunk (inclusive) for a windowed stream whose endpoint names no widest window."""
BACKFILLABLE: tuple[str, ...] = tuple(name for name, s in STREAMS.items() if s.window is not None)
"""The streams a backfill can re-pull: the windowed ones of the registry, in its order."""
assert set(BACKFILLABLE) == set(PULLS), "a windowed stream without its backfill pull"


@dataclass
class ChunkResult:
    """One chunk of a backfill.

    Attributes:
        stream: The stream.
        first: First UTC date.
        last: Last UTC date (inclusive).
        pulled: ``True``: pulled and loaded this run; ``False``: skipped, done by an earlier
            run of the same period.
        rows: Rows loaded per table (new or changed rows; ``shift_versions`` and
            ``shift_coverage`` with shifts).
        requests: Requests sent for it (retries included).
        seconds: Wall time.
        position: Its place among the run's chunks, from 1.
        chunks: The run's chunks in all.
    """

    stream: str
    first: date
    last: date
    pulled: bool
    rows: dict[str, int] = field(default_factory=dict)
    requests: int = 0
    seconds: float = 0.0
    position: int = 0
    chunks: int = 0

    @property
    def label(self) -> str:
        """``2025-01-01..2025-01-31``."""
        return f"{self.first.isoformat()}..{self.last.isoformat()}"


@dataclass
class BackfillSummary:
    """What one backfill did.

    Attributes:
        streams: The streams backfilled.
        first: First UTC date of the period.
        last: Last UTC date of the period (inclusive).
        chunks: Every chunk of the period, in order, pulled or skipped.
        rows: Rows loaded per table this run.
        requests: Requests sent per endpoint path template (parent listings and retries
            included).
        retries: Requests repeated after 429, 5xx, timeouts or dropped connections.
        throttled: 429 answers received.
        paced_seconds: Seconds spent waiting for the rate-limit budget.
        duration_seconds: Wall time.
        resumed_packages: Load packages of an interrupted backfill finished first.
        skipped_parents: Parents that vanished between their listing and their chunk request.
        warehouse: Where the rows went (no credentials), e.g. ``duckdb:data/warehouse.duckdb``.
    """

    streams: tuple[str, ...]
    first: date
    last: date
    chunks: list[ChunkResult] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)
    requests: dict[str, int] = field(default_factory=dict)
    retries: int = 0
    throttled: int = 0
    paced_seconds: float = 0.0
    duration_seconds: float = 0.0
    resumed_packages: int = 0
    skipped_parents: list[str] = field(default_factory=list)
    warehouse: str = ""

    @property
    def pulled(self) -> int:
        """Chunks pulled this run."""
        return sum(1 for c in self.chunks if c.pulled)

    @property
    def skipped(self) -> int:
        """Chunks skipped, done by an earlier run of the same period."""
        return sum(1 for c in self.chunks if not c.pulled)

    @property
    def total_requests(self) -> int:
        """Every request sent."""
        return sum(self.requests.values())


def check_streams(streams: Sequence[str]) -> tuple[str, ...]:
    """The backfillable streams of ``streams``, each once, in the given order.

    Raises:
        ValueError: None given, an unknown stream, or one without a time window (the message
            names every stream that can be backfilled).
    """
    chosen = tuple(dict.fromkeys(s.strip() for s in streams if s.strip()))
    wrong = [s for s in chosen if s not in BACKFILLABLE]
    if wrong or not chosen:
        why = ", ".join(f"{s!r} is {'not windowed' if s in STREAMS else 'unknown'}" for s in wrong)
        raise ValueError(
            f"{why or 'no stream given'}; streams that can be backfilled: {', '.join(BACKFILLABLE)}"
        )
    return chosen


def check_period(first: date | str, last: date | str) -> tuple[date, date]:
    """``(first, last)`` as UTC dates, from dates or ISO dates (``2025-01-31``).

    Raises:
        ValueError: A value that is not an ISO date, or ``first`` after ``last``.
    """
    dates = []
    for name, value in (("--from", first), ("--to", last)):
        if isinstance(value, date):
            dates.append(value)
            continue
        try:
            dates.append(date.fromisoformat(str(value).strip()))
        except ValueError:
            raise ValueError(f"{name} {value!r} is not an ISO date such as 2025-01-31") from None
    if dates[0] > dates[1]:
        raise ValueError(f"--from {dates[0]} is after --to {dates[1]}")
    return dates[0], dates[1]


def chunk_days(stream: str) -> int:
    """The widest chunk of ``stream``, days inclusive: its endpoint's widest request window
    (``Window.max_days``), else :data:`DEFAULT_CHUNK_DAYS`."""
    window = STREAMS[stream].window
    return (window.max_days if window is not None else None) or DEFAULT_CHUNK_DAYS


def plan_chunks(stream: str, first: date, last: date) -> list[Chunk]:
    """``first..last`` (UTC dates, inclusive) split into chunks of at most
    :func:`chunk_days` days, oldest first."""
    return [Chunk(stream, lo, hi) for lo, hi in date_windows(first, last, chunk_days(stream))]


def _describe(summary: BackfillSummary) -> dict[str, Any]:
    return {
        "streams": list(summary.streams),
        "period": f"{summary.first}..{summary.last}",
        "chunks_pulled": summary.pulled,
        "chunks_skipped": summary.skipped,
        "rows": summary.rows,
        "requests": summary.total_requests,
        "warehouse": summary.warehouse,
    }


@records_run("backfill", _describe)
def run_backfill(
    streams: Sequence[str],
    first: date | str,
    last: date | str,
    *,
    project: Project,
    allow_insecure: bool = False,
    on_chunk: Callable[[ChunkResult], None] | None = None,
) -> BackfillSummary:
    """Re-pull ``first..last`` (UTC dates, inclusive) of ``streams`` into dataset ``connecteam``.

    Takes the warehouse's writer lock first, as the sync does (on PostgreSQL the sync's own
    advisory lock: a backfill and a nightly never write at once). Then finishes the load
    package an interrupted backfill left, and pulls each chunk not already done by an earlier
    run of the same stream and period (:func:`plan_chunks`), one load per chunk.

    Args:
        streams: Names of :data:`BACKFILLABLE`.
        first: First UTC date (a date or ISO ``YYYY-MM-DD``).
        last: Last UTC date, inclusive.
        project: Where to load and the account, if handed in (default :func:`core.project.
            resolve`); without one the client reads dlt's ``sources.connecteam`` configuration.
        allow_insecure: Accept a plain ``http://`` base URL to another host (``--allow-insecure``).
        on_chunk: Called with each chunk's :class:`ChunkResult` once it is loaded or skipped.

    Returns:
        A :class:`BackfillSummary`.

    Raises:
        ValueError: An unknown or unwindowed stream, a malformed date, ``first`` after ``last``
            (before any work).
        sources.connecteam.ConnecteamError: Credentials refused, the rate-limit budget spent, a
            plain ``http://`` host elsewhere without ``allow_insecure``.
        dlt.pipeline.exceptions.PipelineStepFailed: A chunk failed; the chunks before it stay
            loaded and done: run the same backfill again to resume.
    """
    chosen = check_streams(streams)
    period = check_period(first, last)
    # DuckDB: one file lock for every job; PostgreSQL: the sync's advisory lock, not one of its own
    job = "backfill" if project.destination == "duckdb" else "sync"
    with warehouse_writer(job, project):
        return _backfill(chosen, period, project, allow_insecure, on_chunk)


def _backfill(
    streams: tuple[str, ...], period: tuple[date, date], project: Project, allow_insecure: bool,
    on_chunk: Callable[[ChunkResult], None] | None,
) -> BackfillSummary:  # fmt: skip
    """:func:`run_backfill` inside the writer lock."""
    started = time.monotonic()
    pipeline = build_pipeline(BACKFILL_PIPELINE, project=project)
    summary = BackfillSummary(streams, *period)
    summary.resumed_packages = finish_pending_loads(pipeline)
    pipeline.sync_destination()
    if not pipeline.default_schema_name:
        # dlt names a default schema only once an extract ends; the first chunk's diffs need one
        # to read what the warehouse holds (:func:`~sources.connecteam.loaded.query_loaded`)
        pipeline._inject_schema(Schema(BACKFILL_PIPELINE))
    client = client_from_config(
        project.source.arguments(), oauth_scopes(streams), now=project.now,
        allow_insecure=allow_insecure,
    )  # fmt: skip
    plans = {stream: plan_chunks(stream, *period) for stream in streams}
    count = sum(len(chunks) for chunks in plans.values())
    with client:
        version = project.source.options.get(
            "shifts_api_version", ConnecteamSourceConfiguration.shifts_api_version
        )
        run = PullRun(client, int(version))
        for stream, chunks in plans.items():
            done = done_chunks(pipeline, stream, *period)
            for chunk in chunks:
                result = ChunkResult(stream, chunk.first, chunk.last, chunk.label not in done)
                if result.pulled:
                    labels = [c.label for c in chunks]
                    _pull_chunk(pipeline, project, run, chunk, (period, labels), result)
                result.position, result.chunks = len(summary.chunks) + 1, count
                summary.chunks.append(result)
                for table, n in result.rows.items():
                    summary.rows[table] = summary.rows.get(table, 0) + n
                if on_chunk is not None:
                    on_chunk(result)
    stats = client.stats
    summary.requests = dict(stats.requests)
    summary.retries, summary.throttled = stats.retries, stats.throttled
    summary.paced_seconds = round(stats.paced_seconds, 2)
    summary.skipped_parents = list(stats.skipped_parents)
    summary.warehouse = warehouse_location(pipeline, project)
    summary.duration_seconds = round(time.monotonic() - started, 2)
    return summary


def _period_key(stream: str, first: date, last: date) -> str:
    """The backfill state's key of one stream's period: ``shifts:2025-01-01..2025-06-30``."""
    return f"{stream}:{first.isoformat()}..{last.isoformat()}"


def done_chunks(pipeline: dlt.Pipeline, stream: str, first: date, last: date) -> set[str]:
    """The chunk labels (``2025-01-01..2025-01-31``) of ``stream``'s period ``first..last`` that
    earlier runs loaded, from the backfill pipeline's committed state; empty when none did, or
    when every chunk was done (a finished backfill is pulled again in full)."""
    sources = pipeline.state.get("sources") or {}
    entry = (sources.get(BACKFILL_PIPELINE) or {}).get("backfills", {})
    found = entry.get(_period_key(stream, first, last)) or {}
    return set() if found.get("complete") else set(found.get("done") or [])


def _note_done(chunk: Chunk, period: tuple[date, date], labels: list[str]) -> None:
    """In the running extract's state: ``chunk`` done, and its period complete once every one
    of ``labels`` is (a complete period's next chunk starts it afresh)."""
    backfills = dlt.current.source_state().setdefault("backfills", {})
    key = _period_key(chunk.stream, *period)
    entry = backfills.get(key)
    if entry is None or entry.get("complete"):
        entry = backfills[key] = {"done": [], "complete": False}
    entry["done"] = sorted({*entry["done"], chunk.label})
    entry["complete"] = set(labels) <= set(entry["done"])


def chunk_resource(
    run: PullRun, chunk: Chunk, period: tuple[date, date], labels: list[str]
) -> DltResource:
    """The dlt resource of one chunk: table ``chunk.stream``, merged on the stream's key with
    its declared column types; its last step notes the chunk done in the backfill's state."""
    stream = STREAMS[chunk.stream]
    spec = PULLS[chunk.stream]

    @dlt.resource(
        name=chunk.stream,
        primary_key=stream.key if len(stream.key) > 1 else stream.key[0],
        write_disposition="merge",
        columns=hints(spec.columns),
    )
    def _chunk() -> Iterator[Any]:
        arrow = ArrowRows(chunk.stream, spec.columns, run.client.stats.untyped_values)
        yield from spec.pull(run, chunk, arrow)
        _note_done(chunk, period, labels)

    return _chunk


def _pull_chunk(
    pipeline: dlt.Pipeline, project: Project, run: PullRun, chunk: Chunk,
    of: tuple[tuple[date, date], list[str]], result: ChunkResult,
) -> None:  # fmt: skip
    """Extract, normalize and load one chunk of ``of`` (the stream's period and the labels
    of all its chunks); fill ``result`` (rows per table, requests, seconds)."""
    started, asked = time.monotonic(), sum(run.client.stats.requests.values())
    resource = chunk_resource(run, chunk, *of)
    if project.destination == "postgres":
        resource.add_map(replacing_nul(chunk.stream))
    normalize = SnakeCase().normalize_identifier  # the connecteam schema's naming
    guard_unique_keys(resource, normalize, run.client.stats.repeated_keys)
    with collecting_new_objects_only():
        with one_sql_client(pipeline):  # the chunk's diffs read the warehouse
            pipeline.extract(resource, loader_file_format=loader_file_format(project))
        release_freed_memory()
        normalized = pipeline.normalize()
        release_freed_memory()
    pipeline.load().raise_on_failed_jobs()
    result.rows = {
        table: n for table, n in normalized.row_counts.items() if not table.startswith("_dlt")
    }
    result.requests = sum(run.client.stats.requests.values()) - asked
    result.seconds = round(time.monotonic() - started, 2)
