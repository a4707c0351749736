"""Time clock resources: ``time_clocks`` (``GET /time-clock/v1/time-clocks``), and per time
clock ``time_activities`` (``.../time-clocks/{timeClockId}/time-activities``, one row per shift
punch, manual break or time off), ``timesheets`` (``.../time-clocks/{timeClockId}/timesheet``,
one row per user and day, ``id`` = clock:user:date), each merged on ``id``; the clocks'
manual-break policies are :mod:`.manual_breaks`.

Time activities and timesheets have no modified-since filter, so every run re-pulls a trailing
window (default 35 days back, through tomorrow's UTC date, as a time clock east of UTC may
already be there) in ``startDate``/``endDate`` requests of at most 92 and 45 days (inclusive, UTC
dates); a row loaded earlier whose start (or date) lies inside the re-pulled window, at least a
day from its edges, and that the provider no longer returns is merged again with
``is_deleted = true`` (:class:`~sources.connecteam.windows.WindowDiff`).
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
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import BATCH_ROWS, BIGINT, BOOL, DOUBLE, JSON, TEXT, ArrowRows, hints
from ..client import ConnecteamClient
from ..contract import deletions_allowed
from ..errors import ParentNotFoundError
from ..fanout import in_parallel
from ..listing import content_hash
from ..registry import STREAMS
from ..windows import DAY_SECONDS, WindowDiff, date_windows, day_start, trailing_dates
from .common import DELETION_MARK, named_listing
from .run import Builders

logger = logging.getLogger("sources.connecteam")

ACTIVITY_KINDS = {"shifts": "shift", "manualBreaks": "manual_break", "timeOffs": "time_off"}
ONE_DAY = timedelta(days=1)


def _max_days(stream: str) -> int:
    """The widest request window of a windowed stream, days inclusive (:data:`STREAMS`)."""
    window = STREAMS[stream].window
    assert window is not None and window.max_days is not None
    return window.max_days


ACTIVITY_MAX_DAYS = _max_days("time_activities")
"""Widest ``startDate``..``endDate`` time-activities window, days inclusive (provider notes)."""
TIMESHEET_MAX_DAYS = _max_days("timesheets")
"""Widest timesheet-totals window, days inclusive (spec: "limited to 45 days")."""
DELETION_COLUMNS: dict[str, str] = {**DELETION_MARK, "content_hash": TEXT}
TIMESHEET_JSON_COLUMNS = {"pay_items", "records", "daily_scheduled_details"}


def activity_row(time_clock_id: int, user_id: int, kind: str, record: dict[str, Any]) -> dict:
    """One time activity (shift, manual break or time off) as a warehouse row.

    Start and end are kept as epoch seconds (UTC) with their timezone names; an open activity
    has no end. ``auto_clock_out_mode`` is the end punch's ``AutoClockOutModeType``.
    """
    start, end = record.get("start") or {}, record.get("end") or {}
    end_source = end.get("source") or {}
    duration = record.get("duration") or {}
    return {
        "id": str(record["id"]),
        "time_clock_id": time_clock_id,
        "user_id": user_id,
        "activity_type": ACTIVITY_KINDS[kind],
        "start_timestamp": start.get("timestamp"),
        "start_timezone": start.get("timezone"),
        "end_timestamp": end.get("timestamp"),
        "end_timezone": end.get("timezone"),
        "job_id": record.get("jobId"),
        "sub_job_id": record.get("subJobId"),
        "scheduler_shift_id": record.get("schedulerShiftId"),
        "manual_break_id": record.get("manualBreakId"),
        "policy_type_id": record.get("policyTypeId"),
        "is_all_day": record.get("isAllDay"),
        "duration_value": duration.get("value"),
        "duration_units": duration.get("units"),
        "is_auto_clock_out": record.get("isAutoClockOut"),
        "auto_clock_out_mode": end_source.get("mode"),
        "start_source_type": (start.get("source") or {}).get("type"),
        "end_source_type": end_source.get("type"),
        "manager_note": record.get("managerNote"),
        "employee_note": record.get("employeeNote"),
        "created_at": record.get("createdAt"),
        "modified_at": record.get("modifiedAt"),
        "shift_attachments": record.get("shiftAttachments") or [],
        "content_hash": content_hash({"user": user_id, "kind": kind, **record}),
        "is_deleted": False,
        "deleted_at": None,
    }


ACTIVITY_COLUMNS: dict[str, str] = {
    "time_clock_id": "bigint!",
    "user_id": BIGINT,
    "start_timestamp": BIGINT,
    "end_timestamp": BIGINT,
    "start_timezone": TEXT,
    "end_timezone": TEXT,
    "job_id": TEXT,
    "sub_job_id": TEXT,
    "scheduler_shift_id": TEXT,
    "manual_break_id": TEXT,
    "policy_type_id": TEXT,
    "is_all_day": BOOL,
    "duration_value": DOUBLE,
    "duration_units": TEXT,
    "is_auto_clock_out": BOOL,
    "auto_clock_out_mode": TEXT,
    "start_source_type": TEXT,
    "end_source_type": TEXT,
    "manager_note": TEXT,
    "employee_note": TEXT,
    "created_at": BIGINT,
    "modified_at": BIGINT,
    "shift_attachments": JSON,
    **DELETION_COLUMNS,
}


def timesheet_row(time_clock_id: int, user_id: int, record: dict[str, Any]) -> dict[str, Any]:
    """One user's timesheet totals for one day (hours are decimal)."""
    return {
        "id": f"{time_clock_id}:{user_id}:{record['date']}",
        "time_clock_id": time_clock_id,
        "user_id": user_id,
        "date": record["date"],
        "daily_total_hours": record.get("dailyTotalHours"),
        "daily_total_work_hours": record.get("dailyTotalWorkHours"),
        "daily_total_paid_break_hours": record.get("dailyTotalPaidBreakHours"),
        "daily_total_unpaid_break_hours": record.get("dailyTotalUnpaidBreakHours"),
        "is_approved": record.get("isApproved"),
        "is_submitted": record.get("isSubmitted"),
        "is_locked": record.get("isLocked"),
        "pay_items": record.get("payItems") or [],
        "records": record.get("records") or [],
        "daily_scheduled_details": record.get("dailyScheduledDetails"),
        "content_hash": content_hash({"user": user_id, **record}),
        "is_deleted": False,
        "deleted_at": None,
    }


TIMESHEET_COLUMNS: dict[str, str] = {
    "time_clock_id": "bigint!",
    "user_id": BIGINT,
    "date": TEXT,
    "daily_total_hours": DOUBLE,
    "daily_total_work_hours": DOUBLE,
    "daily_total_paid_break_hours": DOUBLE,
    "daily_total_unpaid_break_hours": DOUBLE,
    "is_approved": BOOL,
    "is_submitted": BOOL,
    "is_locked": BOOL,
    "pay_items": JSON,
    "records": JSON,
    "daily_scheduled_details": JSON,
    **DELETION_COLUMNS,
}


COVERAGE_HINTS = dlt.mark.make_hints(
    table_name="time_activity_coverage",
    primary_key="time_clock_id",
    write_disposition="merge",
)
"""``time_activity_coverage``: per time clock, the earliest start any run pulled
(``covered_from``), the start of the window the last run re-pulled (``window_from``) and when it
ran (``pulled_at``), epoch seconds (UTC). The models trust the API's current view for activities
starting in ``[window_from, pulled_at)``; older API rows are as of their last pull, so a newer
webhook event about one of them wins, and activities after the pull come from webhooks."""


def time_activities(
    client: ConnecteamClient,
    time_clock_list: Callable[[], list[dict[str, Any]]],
    days_back: int,
    backfill_start: int | None,
) -> DltResource:
    """``time_activities``: one row per activity, merged on the activity ``id``; the trailing
    window is re-pulled every run (windows of at most 92 days), vanished ones marked deleted
    after every time clock's live rows, so an activity that moved from one time clock to another
    stays live under its new clock (the first row of a key wins,
    :mod:`pipelines.unique_keys`). Also writes ``time_activity_coverage`` (see
    :data:`COVERAGE_HINTS`)."""

    # not parallelized with the other resources: an unpaged window answer is large; the two
    # windowed resources take turns in the main thread, and within one, the clocks and windows
    # under way at once hold about max_in_flight such answers (:func:`window_pages`)
    @dlt.resource(
        name="time_activities",
        primary_key="id",
        write_disposition="merge",
        columns=hints(ACTIVITY_COLUMNS),
    )
    def _time_activities() -> Iterator[pa.Table]:
        state = dlt.current.resource_state()
        pulled: dict[str, bool] = state.setdefault("backfilled", {})
        coverage: dict[str, int] = state.setdefault("covered_from", {})
        now = client.now
        arrow = ArrowRows("time_activities", ACTIVITY_COLUMNS, client.stats.untyped_values)
        listed = time_clock_list()
        run = ActivityRun(
            client, days_back, backfill_start, now, len(listed), arrow, pulled, coverage
        )
        tasks = [partial(clock_activities, run, clock) for clock in listed]
        yield from in_parallel(tasks, client.max_in_flight)
        # after every clock's live rows: an activity moved to another clock is live there, and
        # the run's key guard (pipelines.unique_keys) keeps that first row over this tombstone
        for gone in run.gone:
            yield run.arrow.to_arrow(gone)

    return _time_activities


@dataclass
class ActivityRun:
    """One run of ``time_activities``: its settings, its clock and the resource state it keeps
    per time clock (keys: the time clock id as text).

    Attributes:
        client: The client every request goes through.
        days_back: Days before today of the trailing window.
        backfill_start: Where a time clock's first window starts instead, epoch seconds (UTC).
        now: The run's clock, epoch seconds (UTC).
        clocks: Time clocks listed at once (:func:`window_pages` shares ``max_in_flight``).
        arrow: The Arrow batches of ``time_activities`` rows.
        pulled: Whether a time clock's window was pulled before (``backfilled`` in the state).
        coverage: The earliest start any run pulled per time clock, epoch seconds
            (``covered_from``).
        gone: Tombstones of each time clock's vanished activities, yielded after every clock's
            live rows.
    """

    client: ConnecteamClient
    days_back: int
    backfill_start: int | None
    now: float
    clocks: int
    arrow: ArrowRows
    pulled: dict[str, bool] = field(default_factory=dict)
    coverage: dict[str, int] = field(default_factory=dict)
    gone: list[list[dict[str, Any]]] = field(default_factory=list)


def clock_activities(run: ActivityRun, clock: dict[str, Any]) -> Iterator[Any]:
    """One time clock's activities in its trailing window (:func:`~..windows.trailing_dates`;
    from ``backfill_start`` on its first run), as Arrow tables: the new or changed rows
    (:func:`activity_pages`), then its ``time_activity_coverage`` row (:data:`COVERAGE_HINTS`),
    the window noted in ``run``. Tombstones of loaded rows starting inside the window, a day
    from its edges, that the provider no longer returns are kept in ``run.gone``. A time clock
    that vanished since it was listed (404) is skipped.
    """
    clock_id = int(clock["id"])
    try:
        first_run = not run.pulled.get(str(clock_id))
        first, last = trailing_dates(
            run.now, run.days_back, run.backfill_start if first_run else None
        )
        inside = (day_start(first) + DAY_SECONDS, day_start(last))
        diff = WindowDiff.of_loaded(
            "time_activities", "time_clock_id", clock_id,
            ("start_timestamp >= %s and start_timestamp < %s", inside),
        )  # fmt: skip
        progress = Progress(f"time_activities[{clock_id}]", logger=logger)
        pages = activity_pages(run.client, clock_id, first, last, run.clocks, diff, progress)
        yield from run.arrow.batches(pages)
        whole = deletions_allowed(run.client.stats.quarantine, "time_activities", True)
        gone = diff.tombstones(diff.vanished(whole), {"shift_attachments"}, int(run.now))
        if gone:
            run.gone.append(gone)
        progress.done(f" in {first}..{last} ({len(gone)} deleted)")
        run.pulled[str(clock_id)] = True
        covered = min(day_start(first), int(run.coverage.get(str(clock_id), day_start(first))))
        run.coverage[str(clock_id)] = covered
        row = {"time_clock_id": clock_id, "covered_from": covered,
               "window_from": day_start(first), "pulled_at": int(run.now)}  # fmt: skip
        yield dlt.mark.with_hints([row], COVERAGE_HINTS, create_table_variant=True)
    except ParentNotFoundError as exc:
        run.client.skip_parent(exc, "time_activities")


def activity_pages(
    client: ConnecteamClient,
    clock_id: int,
    first: date,
    last: date,
    clocks: int,
    diff: WindowDiff,
    progress: Progress,
) -> Iterator[list[dict[str, Any]]]:
    """The new or changed activity rows (:func:`activity_row`, against ``diff``) of one time
    clock from ``first`` through the day after ``last`` (UTC dates: a clock east of UTC already
    lives on the next date), in windows of at most :data:`ACTIVITY_MAX_DAYS`
    (``GET /time-clock/v1/time-clocks/{timeClockId}/time-activities``, :func:`window_pages`):
    a list per :data:`~..arrow_rows.BATCH_ROWS` rows and one at the end of each answer.
    """
    # through tomorrow: a clock east of UTC already lives on the next date
    windows = date_windows(first, last + ONE_DAY, ACTIVITY_MAX_DAYS)
    path = {"timeClockId": clock_id}
    for page in window_pages(client, "time_activities", windows, path, clocks):
        # flattened a batch at a time: the answer is one unpaged window
        rows: list[dict[str, Any]] = []
        for user in page:
            rows += [
                activity_row(clock_id, int(user["userId"]), kind, record)
                for kind in ACTIVITY_KINDS
                for record in user.get(kind) or []
            ]
            if len(rows) >= BATCH_ROWS:
                progress.page(len(rows))
                yield diff.changed(rows)
                rows = []
        progress.page(len(rows))
        yield diff.changed(rows)


def timesheets(
    client: ConnecteamClient,
    time_clock_list: Callable[[], list[dict[str, Any]]],
    days_back: int,
    backfill_start: int | None,
) -> DltResource:
    """``timesheets``: timesheet totals, one row per time clock, user and day (``id`` =
    ``clock:user:date``); the trailing window is re-pulled in windows of at most 45 days."""

    @dlt.resource(
        name="timesheets",
        primary_key="id",
        write_disposition="merge",
        columns=hints(TIMESHEET_COLUMNS),
    )
    def _timesheets() -> Iterator[pa.Table]:
        pulled: dict[str, bool] = dlt.current.resource_state().setdefault("backfilled", {})
        now = client.now
        arrow = ArrowRows("timesheets", TIMESHEET_COLUMNS, client.stats.untyped_values)

        def one(clock: dict[str, Any]) -> Iterator[pa.Table]:
            clock_id = int(clock["id"])
            try:
                first_run = not pulled.get(str(clock_id))
                first, last = trailing_dates(now, days_back, backfill_start if first_run else None)
                inside = ((first + timedelta(days=1)).isoformat(), last.isoformat())
                diff = WindowDiff.of_loaded(
                    "timesheets", "time_clock_id", clock_id, ("date >= %s and date < %s", inside)
                )
                progress = Progress(f"timesheets[{clock_id}]", logger=logger)
                windows = date_windows(first, last + ONE_DAY, TIMESHEET_MAX_DAYS)
                path = {"timeClockId": clock_id}
                plan = {"includePlanVsActual": "true"}
                for page in window_pages(client, "timesheets", windows, path, clocks, plan):
                    rows: list[dict[str, Any]] = []
                    for n, user in enumerate(page, 1):
                        rows += [timesheet_row(clock_id, int(user["userId"]), day)
                                 for day in user.get("dailyRecords") or []]  # fmt: skip
                        if len(rows) >= BATCH_ROWS or n == len(page):
                            progress.page(len(rows))
                            changed = diff.changed(rows)
                            rows = []
                            if changed:
                                yield arrow.to_arrow(changed)
                whole = deletions_allowed(client.stats.quarantine, "timesheets", True)
                gone = diff.tombstones(diff.vanished(whole), TIMESHEET_JSON_COLUMNS, int(now))
                if gone:
                    yield arrow.to_arrow(gone)
                progress.done(f" in {first}..{last} ({len(gone)} deleted)")
                pulled[str(clock_id)] = True
            except ParentNotFoundError as exc:
                client.skip_parent(exc, "timesheets")

        listed = time_clock_list()
        clocks = len(listed)
        yield from in_parallel([partial(one, clock) for clock in listed], client.max_in_flight)

    return _timesheets


def window_pages(
    client: ConnecteamClient,
    stream: str,
    windows: list[tuple[date, date]],
    path_params: dict[str, Any],
    parents: int,
    params: dict[str, Any] | None = None,
) -> Iterator[list[dict[str, Any]]]:
    """The pages of ``stream`` for every ``(startDate, endDate)`` window (UTC dates, inclusive)
    of one of ``parents`` time clocks listed at once: up to ``client.max_in_flight // parents``
    windows at once (at least one), so all clocks together hold about ``max_in_flight`` window
    answers. Pages of different windows interleave (the windows do not overlap, and a row two
    windows returned is taken once by the diff)."""

    def one(lo: date, hi: date) -> Iterator[list[dict[str, Any]]]:
        query = {"startDate": lo.isoformat(), "endDate": hi.isoformat(), **(params or {})}
        return client.paginate(STREAMS[stream], query, path_params)

    tasks = [partial(one, lo, hi) for lo, hi in windows]
    return in_parallel(tasks, max(1, client.max_in_flight // max(1, parents)))


RESOURCES: Builders = {
    "time_clocks": lambda run: named_listing(run.client, "time_clocks", run.time_clocks),
    "time_activities": lambda run: time_activities(
        run.client, run.time_clocks, *run.windows.activities
    ),
    "timesheets": lambda run: timesheets(run.client, run.time_clocks, *run.windows.activities),
}
"""This domain's streams and how each one's resource is built for a run."""
