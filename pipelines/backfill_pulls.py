"""What one backfill chunk pulls, per windowed stream: the provider's answers for one span of
UTC dates, mapped to warehouse rows by the stream's own row mapping, as the Arrow tables the
nightly's resource would load (:mod:`pipelines.backfill` loads them).

Each pull asks the same endpoints the nightly does, through the same client (paging, rate-limit
pacing, retries) and maps rows with the same functions of :mod:`sources.connecteam.resources`;
it keeps no dlt state of its own and marks nothing deleted: a chunk says what the provider holds
in its span, never what vanished from it. Streams compared row by row with the warehouse
(shifts, time activities, timesheets, unavailabilities: :class:`~sources.connecteam.windows.
WindowDiff`) load only new or changed rows, as the nightly does; the listings the nightly diffs
by digest in its own dlt state (time-off requests, pay rates, daily sales) load every row of the
span, merged on their key.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import partial
from typing import Any

import dlt
import pyarrow as pa

from core.progress import Progress
from sources.connecteam.arrow_rows import ArrowRows
from sources.connecteam.client import ConnecteamClient
from sources.connecteam.errors import ParentNotFoundError
from sources.connecteam.fanout import in_parallel
from sources.connecteam.listing import complete_listing, live, once
from sources.connecteam.registry import STREAMS, Stream
from sources.connecteam.resources.availability import UNAVAILABILITY_COLUMNS, unavailability_row
from sources.connecteam.resources.common import versions
from sources.connecteam.resources.pay import PAY_RATE_COLUMNS, pay_rate_rows
from sources.connecteam.resources.sales import DAILY_SALES_COLUMNS, daily_sales_row
from sources.connecteam.resources.scheduling import (
    SHIFT_COLUMNS,
    SHIFT_COVERAGE_HINTS,
    shift_row,
    shifts_endpoint,
)
from sources.connecteam.resources.time_clock import (
    ACTIVITY_COLUMNS,
    TIMESHEET_COLUMNS,
    activity_pages,
    timesheet_row,
    window_pages,
)
from sources.connecteam.resources.time_off import TIME_OFF_COLUMNS, time_off_row
from sources.connecteam.windows import DAY_SECONDS, WindowDiff, day_start

logger = logging.getLogger("pipelines.backfill")

TIME_OFF_STATUSES = ["approved", "pending", "denied"]
"""Every status of ``GET /time-off/v1/requests`` (the spec's enumeration), as the nightly asks."""


@dataclass(frozen=True)
class Chunk:
    """One request span of one stream: UTC dates ``first..last``, inclusive.

    Attributes:
        stream: A windowed stream of :data:`~sources.connecteam.registry.STREAMS`.
        first: First UTC date.
        last: Last UTC date (``>= first``).
    """

    stream: str
    first: date
    last: date

    @property
    def label(self) -> str:
        """``2025-01-01..2025-01-31``: the span, as the backfill's state and output name it."""
        return f"{self.first.isoformat()}..{self.last.isoformat()}"

    @property
    def start(self) -> int:
        """Epoch seconds (UTC) of ``first``'s midnight."""
        return day_start(self.first)

    @property
    def end(self) -> int:
        """Epoch seconds (UTC) of the midnight after ``last`` (the span is ``[start, end)``)."""
        return day_start(self.last) + DAY_SECONDS


@dataclass
class PullRun:
    """What the chunks of one backfill share: the client and the parent listings, each fetched
    once per backfill on first use.

    Attributes:
        client: Every request goes through it (its ``stats`` count them).
        shifts_api_version: The shift listing the nightly reads (setting
            ``shifts_api_version``: 1, a row per assigned user; 2, a row per shift), so a
            backfill loads rows of the same kind.
        schedulers: ``GET /scheduler/v1/schedulers``, read to its end.
        time_clocks: ``GET /time-clock/v1/time-clocks``.
    """

    client: ConnecteamClient
    shifts_api_version: int = 1
    schedulers: Callable[[], list[dict[str, Any]]] = field(init=False)
    time_clocks: Callable[[], list[dict[str, Any]]] = field(init=False)

    def __post_init__(self) -> None:
        client = self.client
        shifts_endpoint(self.shifts_api_version)  # a wrong setting fails before any request
        self.schedulers = once(lambda: complete_listing(client.pages(STREAMS["schedulers"]))[0])
        self.time_clocks = once(
            lambda: [r for page in client.paginate(STREAMS["time_clocks"]) for r in page]
        )


Pull = Callable[[PullRun, Chunk, ArrowRows], Iterator[Any]]
"""A stream's chunk pull: the Arrow tables (or dlt-marked items) to load for one chunk."""


def _per_parent(
    run: PullRun, stream: str, parents: list[dict[str, Any]], one: Callable[[int], Iterator[Any]],
    id_field: str,
) -> Iterator[Any]:  # fmt: skip
    """``one(parent id)`` for every parent, up to ``max_in_flight`` at once; a parent that
    vanished since it was listed (404) is skipped and named in the client's statistics."""

    def guarded(parent_id: int) -> Iterator[Any]:
        try:
            yield from one(parent_id)
        except ParentNotFoundError as exc:
            run.client.skip_parent(exc, stream)

    tasks = [partial(guarded, int(p[id_field])) for p in parents]
    return in_parallel(tasks, run.client.max_in_flight)


def pull_shifts(run: PullRun, chunk: Chunk, arrow: ArrowRows) -> Iterator[Any]:
    """Every scheduler's shift rows overlapping ``[chunk.start, chunk.end)`` sorted by creation
    (``GET /scheduler/v1/schedulers/{schedulerId}/shifts``, or its V2 path with
    ``shifts_api_version`` 2; ``startTime``/``endTime`` epoch seconds), new or changed ones
    (:func:`~sources.connecteam.resources.scheduling.shift_row`, against the loaded rows), each
    also as a ``shift_versions`` row, and one ``shift_coverage``
    row per scheduler: the window this pull covered and when."""
    now = int(run.client.now)
    span = ("end_time > %s and start_time < %s", (chunk.start, chunk.end))
    endpoint: Stream = shifts_endpoint(run.shifts_api_version)

    def one(sid: int) -> Iterator[Any]:
        params = {"startTime": chunk.start, "endTime": chunk.end,
                  "sort": "created_at", "order": "asc"}  # fmt: skip
        diff = WindowDiff.of_loaded("shifts", "scheduler_id", sid, span, span)
        progress = Progress(f"shifts[{sid}] {chunk.label}", logger=logger)
        pages = progress.track(run.client.paginate(endpoint, params, {"schedulerId": sid}))
        for batch in arrow.batches(diff.changed(shift_row(sid, r) for r in page) for page in pages):
            yield batch
            yield versions(batch, "shifts", ("scheduler_id", "id"), SHIFT_COLUMNS, now)
        progress.done()
        coverage = {
            "coverage_key": f"{sid}:{chunk.start}:{chunk.end}",
            "scheduler_id": sid,
            "window_from": chunk.start,
            "window_to": chunk.end,
            "pulled_at": now,
        }
        yield dlt.mark.with_hints([coverage], SHIFT_COVERAGE_HINTS, create_table_variant=True)

    return _per_parent(run, "shifts", run.schedulers(), one, "schedulerId")


def pull_unavailabilities(run: PullRun, chunk: Chunk, arrow: ArrowRows) -> Iterator[Any]:
    """Every scheduler's unavailabilities of ``[chunk.start, chunk.end)``
    (``GET /scheduler/v1/schedulers/{schedulerId}/unavailabilities``), new or changed ones
    (:func:`~sources.connecteam.resources.availability.unavailability_row`)."""
    days = ("unavailability_date >= %s and unavailability_date <= %s",
            (chunk.first.isoformat(), chunk.last.isoformat()))  # fmt: skip
    endpoint = STREAMS["scheduler_unavailabilities"]

    def one(sid: int) -> Iterator[pa.Table]:
        diff = WindowDiff.of_loaded("scheduler_unavailabilities", "scheduler_id", sid, days, days)
        progress = Progress(f"scheduler_unavailabilities[{sid}] {chunk.label}", logger=logger)
        params = {"startTime": chunk.start, "endTime": chunk.end}
        pages = progress.track(run.client.paginate(endpoint, params, {"schedulerId": sid}))
        yield from arrow.batches(diff.changed(unavailability_row(sid, r) for r in p) for p in pages)
        progress.done()

    return _per_parent(run, "scheduler_unavailabilities", run.schedulers(), one, "schedulerId")


def pull_time_activities(run: PullRun, chunk: Chunk, arrow: ArrowRows) -> Iterator[Any]:
    """Every time clock's activities starting on ``chunk.first..chunk.last``
    (``GET /time-clock/v1/time-clocks/{timeClockId}/time-activities``, ``startDate``/``endDate``
    UTC dates), new or changed ones (:func:`~sources.connecteam.resources.time_clock.
    activity_pages`, which maps them with ``activity_row``)."""
    clocks = run.time_clocks()
    span = ("start_timestamp >= %s and start_timestamp < %s", (chunk.start, chunk.end))

    def one(clock_id: int) -> Iterator[pa.Table]:
        diff = WindowDiff.of_loaded("time_activities", "time_clock_id", clock_id, span, span)
        progress = Progress(f"time_activities[{clock_id}] {chunk.label}", logger=logger)
        # activity_pages asks through the day after its ``last`` (the nightly's "tomorrow"):
        # the day before the chunk's last keeps the request within the chunk
        last = chunk.last - timedelta(days=1)
        pages = activity_pages(run.client, clock_id, chunk.first, last, len(clocks), diff, progress)
        yield from arrow.batches(pages)
        progress.done()

    return _per_parent(run, "time_activities", clocks, one, "id")


def pull_timesheets(run: PullRun, chunk: Chunk, arrow: ArrowRows) -> Iterator[Any]:
    """Every time clock's timesheet totals of ``chunk.first..chunk.last``
    (``GET /time-clock/v1/time-clocks/{timeClockId}/timesheet`` with ``includePlanVsActual``),
    new or changed rows (:func:`~sources.connecteam.resources.time_clock.timesheet_row`)."""
    clocks = run.time_clocks()
    days = ("date >= %s and date <= %s", (chunk.first.isoformat(), chunk.last.isoformat()))
    plan = {"includePlanVsActual": "true"}

    def one(clock_id: int) -> Iterator[pa.Table]:
        diff = WindowDiff.of_loaded("timesheets", "time_clock_id", clock_id, days, days)
        progress = Progress(f"timesheets[{clock_id}] {chunk.label}", logger=logger)
        path = {"timeClockId": clock_id}
        answers = window_pages(
            run.client, "timesheets", [(chunk.first, chunk.last)], path, len(clocks), plan
        )
        rows = (
            [timesheet_row(clock_id, int(user["userId"]), day)
             for user in page for day in user.get("dailyRecords") or []]
            for page in answers
        )  # fmt: skip
        yield from arrow.batches(diff.changed(batch) for batch in progress.track(rows))
        progress.done()

    return _per_parent(run, "timesheets", clocks, one, "id")


def _whole_listing(
    run: PullRun, chunk: Chunk, params: dict[str, Any], key: str,
    to_rows: Callable[[dict[str, Any]], list[dict[str, Any]]], arrow: ArrowRows,
) -> Iterator[pa.Table]:  # fmt: skip
    """Every record of ``chunk.stream``'s listing with ``params``, as live rows by ``to_rows``,
    one per ``key`` (a record a shifted page returned twice is loaded once)."""
    progress = Progress(f"{chunk.stream} {chunk.label}", logger=logger)
    rows: dict[str, dict[str, Any]] = {}
    for page in progress.track(run.client.paginate(STREAMS[chunk.stream], params)):
        for record in page:
            rows.update((str(r[key]), live(r)) for r in to_rows(record))
    progress.done()
    if rows:
        yield from arrow.batches([list(rows.values())])


def _dates(chunk: Chunk) -> dict[str, Any]:
    return {"startDate": chunk.first.isoformat(), "endDate": chunk.last.isoformat()}


def pull_time_off_requests(run: PullRun, chunk: Chunk, arrow: ArrowRows) -> Iterator[Any]:
    """The requests of every status overlapping ``chunk.first..chunk.last``
    (``GET /time-off/v1/requests``), every one as a live row
    (:func:`~sources.connecteam.resources.time_off.time_off_row`)."""
    params = {**_dates(chunk), "statuses": TIME_OFF_STATUSES}
    return _whole_listing(run, chunk, params, "id", lambda r: [time_off_row(r)], arrow)


def pull_pay_rates(run: PullRun, chunk: Chunk, arrow: ArrowRows) -> Iterator[Any]:
    """The rates in effect during ``chunk.first..chunk.last``, with their history
    (``GET /pay-rates/v1/pay-rates?isIncludeHistory=true``), every one as live rows
    (:func:`~sources.connecteam.resources.pay.pay_rate_rows`)."""
    params = {**_dates(chunk), "isIncludeHistory": "true"}
    return _whole_listing(run, chunk, params, "pay_rate_key", pay_rate_rows, arrow)


def pull_daily_sales(run: PullRun, chunk: Chunk, arrow: ArrowRows) -> Iterator[Any]:
    """Every location's entries dated ``chunk.first..chunk.last`` (``GET /sales/v1/daily-sales``),
    every one as a live row (:func:`~sources.connecteam.resources.sales.daily_sales_row`)."""
    to_rows = lambda r: [daily_sales_row(r)]  # noqa: E731 - one row per entry
    return _whole_listing(run, chunk, _dates(chunk), "daily_sales_key", to_rows, arrow)


@dataclass(frozen=True)
class StreamPull:
    """How a windowed stream's chunk is pulled and loaded.

    Attributes:
        columns: The table's declared column types (as the nightly's resource declares them).
        pull: The chunk pull.
    """

    columns: dict[str, str]
    pull: Pull


PULLS: dict[str, StreamPull] = {
    "shifts": StreamPull(SHIFT_COLUMNS, pull_shifts),
    "time_activities": StreamPull(ACTIVITY_COLUMNS, pull_time_activities),
    "timesheets": StreamPull(TIMESHEET_COLUMNS, pull_timesheets),
    "time_off_requests": StreamPull(TIME_OFF_COLUMNS, pull_time_off_requests),
    "scheduler_unavailabilities": StreamPull(UNAVAILABILITY_COLUMNS, pull_unavailabilities),
    "pay_rates": StreamPull(PAY_RATE_COLUMNS, pull_pay_rates),
    "daily_sales": StreamPull(DAILY_SALES_COLUMNS, pull_daily_sales),
}
"""The chunk pull of every windowed stream (``Stream.window`` set), by stream."""
