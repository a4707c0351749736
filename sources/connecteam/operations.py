"""Operations resources of the ``connecteam`` source: time clocks and their time activities and
timesheet totals, form submissions, jobs, time-off requests, task boards and tasks, and the
definitions of user custom fields.

Endpoints (``shared/reference/connecteam-openapi.json``) and primary keys:

* ``time_clocks``: ``GET /time-clock/v1/time-clocks`` (not paged); ``id``
* ``time_activities``: ``GET .../time-clocks/{timeClockId}/time-activities``; ``id`` (activity)
* ``timesheets``: ``GET .../time-clocks/{timeClockId}/timesheet``; ``id`` = clock:user:date
* ``form_submissions``: ``GET /forms/v1/forms/{formId}/form-submissions``;
  ``form_submission_id``
* ``jobs``: ``GET /jobs/v1/jobs?includeDeleted=true``; ``job_id``
* ``time_off_requests``: ``GET /time-off/v1/requests`` (all statuses); ``id``
* ``task_boards``, ``tasks``: ``GET /tasks/v1/taskboards[/{taskBoardId}/tasks]``; ``id``
* ``user_custom_field_definitions``: ``GET /users/v1/custom-fields``; ``id``

Deletions: the full listings (jobs, time-off requests within their window, time clocks, task
boards, tasks, user custom field definitions) mark a loaded row the provider no longer returns
``is_deleted = true`` with ``deleted_at`` (epoch seconds, UTC), but only after a complete listing
(every page read, ``paging.total`` matched when sent; for tasks, per board: a board whose tasks
could not be listed marks none of its tasks; the tasks of a board no longer listed at all are
marked). A listing that fails fails its stream and marks nothing.

Windows: time activities are asked for in ``startDate``/``endDate`` windows of at most 92 days,
timesheets 45, time off 365 (days inclusive, UTC dates). Time activities and timesheets have no
modified-since filter, so every run re-pulls a trailing window (default 35 days back, through
tomorrow's UTC date, as a time clock east of UTC may already be there); a row loaded
earlier whose start (or date) lies inside the re-pulled window, at least a day from its edges,
and that the provider no longer returns is merged again with ``is_deleted = true``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from ..arrow_hints import quiet_arrow_hint_warnings
from ..clock import now as clock_now
from ..progress import Progress
from .arrow_rows import BIGINT, BOOL, DOUBLE, JSON, TEXT, ArrowRows, hints
from .client import ConnecteamClient, ParentNotFoundError
from .helpers import complete_listing, content_hash, date_windows, live, utc_date
from .loaded import only_changed, query_loaded, tombstones, vanished
from .settings import (
    BATCH_ROWS,
    DAY_SECONDS,
    FORM_SUBMISSIONS,
    JOBS,
    TASKS,
    TIME_ACTIVITIES,
    TIME_ACTIVITIES_MAX_DAYS,
    TIME_OFF_MAX_DAYS,
    TIME_OFF_REQUESTS,
    TIMESHEET_MAX_DAYS,
    TIMESHEETS,
    USER_CUSTOM_FIELD_DEFINITIONS,
)

logger = logging.getLogger("sources.connecteam")
# JSON columns travel as JSON text in Arrow, declared ``json`` in the hints: intentional
quiet_arrow_hint_warnings(
    "time_activities",
    "timesheets",
    "form_submissions",
    "jobs",
    "time_off_requests",
    "time_clocks",
    "task_boards",
    "tasks",
    "user_custom_field_definitions",
)

ACTIVITY_KINDS = {"shifts": "shift", "manualBreaks": "manual_break", "timeOffs": "time_off"}
ONE_DAY = timedelta(days=1)
DELETION_MARK: dict[str, str] = {"is_deleted": BOOL, "deleted_at": BIGINT}
"""The sync's deletion mark: ``is_deleted``, and ``deleted_at`` in epoch seconds (UTC)."""
DELETION_COLUMNS: dict[str, str] = {**DELETION_MARK, "content_hash": TEXT}


def _epoch(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


def trailing_dates(now: float, days_back: int, backfill_start: int | None) -> tuple[date, date]:
    """``(first, last)`` UTC dates a run re-pulls: ``days_back`` days before today (or from
    ``backfill_start``, epoch seconds, when earlier) through today."""
    last = utc_date(now)
    first = last - timedelta(days=days_back)
    if backfill_start is not None:
        first = min(first, utc_date(backfill_start))
    return first, last


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


class WindowedDiff:
    """Rows of one parent over one re-pulled window, compared with what is loaded.

    Args:
        table: Destination table.
        parent_column: Column holding the parent id (``time_clock_id``).
        parent_id: The parent.
        position: SQL expression placing a row in time (``start_timestamp`` or ``date``).
        inside: ``(low, high)`` bounds of ``position`` within which a loaded row that the
            provider no longer returns counts as deleted.
    """

    def __init__(
        self, table: str, parent_column: str, parent_id: int, position: str, inside: tuple[Any, Any]
    ) -> None:
        self.table, self.parent_column, self.parent_id = table, parent_column, parent_id
        _, rows = query_loaded(
            table,
            f"select id, content_hash, {position} >= %s and {position} < %s from {{table}} "
            f"where {parent_column} = %s and not coalesce(is_deleted, false)",
            inside[0],
            inside[1],
            parent_id,
        )
        self.live = {str(r[0]): (str(r[1]), bool(r[2])) for r in rows}
        self.seen: set[str] = set()

    def changed(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rows that are new or differ from the loaded ones."""
        out = []
        for row in rows:
            if row["id"] in self.seen:
                continue  # returned by two overlapping windows
            self.seen.add(row["id"])
            known = self.live.get(row["id"])
            if known is None or known[0] != row["content_hash"]:
                out.append(row)
        return out

    def deleted(self, json_columns: set[str], now: int) -> list[dict[str, Any]]:
        """Loaded rows inside the window that no answer returned, marked deleted."""
        gone = {i for i, (_, inside) in self.live.items() if inside and i not in self.seen}
        key = f"{self.parent_column} = %s"
        return tombstones(self.table, key, (self.parent_id,), gone, json_columns, now)


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
    window is re-pulled every run (windows of at most 92 days), vanished ones marked deleted.
    Also writes ``time_activity_coverage`` (see :data:`COVERAGE_HINTS`)."""

    # not parallelized: an unpaged window answer is large; the two windowed resources take
    # turns in the main thread instead of holding two such answers at once
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
        now = clock_now()
        arrow = ArrowRows("time_activities", ACTIVITY_COLUMNS, client.stats.untyped_values)
        for clock in time_clock_list():
            clock_id = int(clock["id"])
            try:
                first_run = not pulled.get(str(clock_id))
                first, last = trailing_dates(now, days_back, backfill_start if first_run else None)
                inside = (_epoch(first) + DAY_SECONDS, _epoch(last))
                diff = WindowedDiff(
                    "time_activities", "time_clock_id", clock_id, "start_timestamp", inside
                )
                progress = Progress(f"time_activities[{clock_id}]", logger=logger)

                def pages(
                    diff: WindowedDiff = diff,
                    clock_id: int = clock_id,
                    first: date = first,
                    last: date = last,
                    progress: Progress = progress,
                ) -> Iterator[list[dict[str, Any]]]:
                    # through tomorrow: a clock east of UTC already lives on the next date
                    for lo, hi in date_windows(first, last + ONE_DAY, TIME_ACTIVITIES_MAX_DAYS):
                        params = {"startDate": lo.isoformat(), "endDate": hi.isoformat()}
                        for page in client.paginate(
                            TIME_ACTIVITIES, params, {"timeClockId": clock_id}
                        ):
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

                yield from arrow.batches(pages())
                gone = diff.deleted({"shift_attachments"}, int(now))
                if gone:
                    yield arrow.to_arrow(gone)
                progress.done(f" in {first}..{last} ({len(gone)} deleted)")
                pulled[str(clock_id)] = True
                covered = min(_epoch(first), int(coverage.get(str(clock_id), _epoch(first))))
                coverage[str(clock_id)] = covered
                row = {"time_clock_id": clock_id, "covered_from": covered,
                       "window_from": _epoch(first), "pulled_at": int(now)}  # fmt: skip
                yield dlt.mark.with_hints([row], COVERAGE_HINTS, create_table_variant=True)
            except ParentNotFoundError as exc:
                client.skip_parent(exc, "time_activities")

    return _time_activities


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
        now = clock_now()
        arrow = ArrowRows("timesheets", TIMESHEET_COLUMNS, client.stats.untyped_values)
        for clock in time_clock_list():
            clock_id = int(clock["id"])
            try:
                first_run = not pulled.get(str(clock_id))
                first, last = trailing_dates(now, days_back, backfill_start if first_run else None)
                inside = ((first + timedelta(days=1)).isoformat(), last.isoformat())
                diff = WindowedDiff("timesheets", "time_clock_id", clock_id, "date", inside)
                progress = Progress(f"timesheets[{clock_id}]", logger=logger)
                for lo, hi in date_windows(first, last + ONE_DAY, TIMESHEET_MAX_DAYS):
                    params = {"startDate": lo.isoformat(), "endDate": hi.isoformat(),
                              "includePlanVsActual": "true"}  # fmt: skip
                    for page in client.paginate(TIMESHEETS, params, {"timeClockId": clock_id}):
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
                gone = diff.deleted({"pay_items", "records", "daily_scheduled_details"}, int(now))
                if gone:
                    yield arrow.to_arrow(gone)
                progress.done(f" in {first}..{last} ({len(gone)} deleted)")
                pulled[str(clock_id)] = True
            except ParentNotFoundError as exc:
                client.skip_parent(exc, "timesheets")

    return _timesheets


SUBMISSION_COLUMNS: dict[str, str] = {
    "answers": JSON,
    "manager_fields": JSON,
    "submission_timestamp": BIGINT,
}


def form_submissions(
    client: ConnecteamClient, form_list: Callable[[], tuple[list[dict[str, Any]], bool]]
) -> DltResource:
    """``form_submissions``: one row per submission, answers kept as JSON with their
    ``questionType``, merged on ``form_submission_id``. Per form, a later run asks only for
    submissions from the newest ``submissionTimestamp`` already loaded
    (``submittingStartTimestamp``, inclusive; the ones at that instant already loaded are
    skipped)."""

    @dlt.resource(
        name="form_submissions",
        primary_key="form_submission_id",
        write_disposition="merge",
        parallelized=True,
        columns=hints(SUBMISSION_COLUMNS),
    )
    def _form_submissions() -> Iterator[pa.Table]:
        cursors: dict[str, dict[str, Any]] = dlt.current.resource_state().setdefault("cursors", {})
        arrow = ArrowRows("form_submissions", SUBMISSION_COLUMNS, client.stats.untyped_values)
        for form in form_list()[0]:
            form_id = int(form["formId"])
            try:
                cursor = cursors.get(str(form_id), {})
                params = {}
                if cursor.get("at") is not None:
                    params["submittingStartTimestamp"] = int(cursor["at"])
                known = set(cursor.get("ids", []))
                progress = Progress(f"form_submissions[{form_id}]", logger=logger)
                newest, at_newest = cursor.get("at"), set(known)

                def rows(
                    params: dict[str, Any] = params,
                    form_id: int = form_id,
                    known: set[str] = known,
                    progress: Progress = progress,
                ) -> Iterator[list[dict[str, Any]]]:
                    nonlocal newest, at_newest
                    for page in progress.track(
                        client.paginate(FORM_SUBMISSIONS, params, {"formId": form_id})
                    ):
                        out = []
                        for s in page:
                            sid, at = str(s["formSubmissionId"]), s.get("submissionTimestamp")
                            if not isinstance(at, int) or isinstance(at, bool):
                                pass  # no usable time: loaded, but it cannot move the cursor
                            elif newest is None or at > newest:
                                newest, at_newest = at, {sid}
                            elif at == newest:
                                at_newest.add(sid)
                            if sid not in known:
                                out.append(_submission_row(s))
                        yield out

                yield from arrow.batches(rows())
                cursors[str(form_id)] = {"at": newest, "ids": sorted(at_newest)}
                progress.done()
            except ParentNotFoundError as exc:
                client.skip_parent(exc, "form_submissions")

    return _form_submissions


def _submission_row(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "form_submission_id": str(record["formSubmissionId"]),
        "form_id": record.get("formId"),
        "entry_num": record.get("entryNum"),
        "submission_timestamp": record.get("submissionTimestamp"),
        "submission_timezone": record.get("submissionTimezone"),
        "submission_start_timestamp": record.get("submissionStartTimestamp"),
        "submitting_user_id": record.get("submittingUserId"),
        "is_anonymous": record.get("isAnonymous"),
        "manager_fields": record.get("managerFields") or [],
        "answers": record.get("answers") or [],
    }


JOB_COLUMNS: dict[str, str] = {
    "parent_job_id": TEXT,
    "custom_fields": JSON,
    "assign": JSON,
    "gps": JSON,
    "instance_ids": JSON,
    "fence_size": BIGINT,
    **DELETION_MARK,
}


def jobs(client: ConnecteamClient) -> DltResource:
    """``jobs``: every job including deleted ones (``includeDeleted=true``), sub-jobs flattened
    beside their parent (``parent_job_id``), merged on ``job_id``; only changed ones load.

    ``is_deleted`` is the provider's ``isDeleted``; a job (or sub-job) the complete listing no
    longer holds at all is marked ``is_deleted`` too, with ``deleted_at`` set."""

    @dlt.resource(
        name="jobs",
        primary_key="job_id",
        write_disposition="merge",
        parallelized=True,
        columns=hints(JOB_COLUMNS),
    )
    def _jobs() -> Iterator[pa.Table]:
        progress = Progress("jobs", logger=logger)
        listed, complete = complete_listing(
            client.pages(JOBS, {"includeDeleted": "true"}), progress.page
        )
        rows = []
        for job in listed:
            rows.append(_job_row(job, None))
            rows += [_job_row(sub, job["jobId"]) for sub in job.get("subJobs") or []]
        changed = [{**r, "deleted_at": None} for r in only_changed(rows, "job_id")]
        seen = {r["job_id"] for r in rows}
        gone = vanished("jobs", "job_id", seen, complete, int(clock_now()))
        progress.done(
            f" ({len(rows)} with sub-jobs, {len(changed)} new or changed, {len(gone)} deleted)"
        )
        arrow = ArrowRows("jobs", JOB_COLUMNS, client.stats.untyped_values)
        for batch in (changed, gone):
            if batch:
                yield arrow.to_arrow(batch)

    return _jobs


def _job_row(job: dict[str, Any], parent: str | None) -> dict[str, Any]:
    return {
        "job_id": str(job["jobId"]),
        "parent_job_id": parent or job.get("parentId"),
        "title": job.get("title"),
        "code": job.get("code"),
        "color": job.get("color"),
        "description": job.get("description"),
        "is_deleted": bool(job.get("isDeleted", False)),
        "use_parent_data": job.get("useParentData"),
        "fence_size": job.get("fenceSize"),
        "gps": job.get("gps"),
        "assign": job.get("assign"),
        "custom_fields": job.get("customFields") or [],
        "instance_ids": job.get("instanceIds") or [],
    }


TIME_OFF_COLUMNS: dict[str, str] = {
    "time_clock_id": BIGINT,
    "duration_amount": DOUBLE,
    "duration_units": TEXT,
    **DELETION_MARK,
}


def time_off_requests(
    client: ConnecteamClient, days_back: int, days_ahead: int, backfill_start: int | None
) -> DltResource:
    """``time_off_requests``: requests of every status overlapping ``[today - days_back,
    today + days_ahead]`` (the first run from ``backfill_start`` when earlier), in windows of
    at most 365 days; merged on ``id``; only new or changed ones load. A loaded request
    overlapping the run's range that no window returns any more is marked deleted."""

    @dlt.resource(
        name="time_off_requests",
        primary_key="id",
        write_disposition="merge",
        parallelized=True,
        columns=hints(TIME_OFF_COLUMNS),
    )
    def _time_off_requests() -> Iterator[pa.Table]:
        state = dlt.current.resource_state()
        now = clock_now()
        first, _ = trailing_dates(
            now, days_back, None if state.get("backfilled") else backfill_start
        )
        last = utc_date(now) + timedelta(days=days_ahead)
        progress = Progress("time_off_requests", logger=logger)
        rows: dict[str, dict[str, Any]] = {}
        complete = True
        for lo, hi in date_windows(first, last, TIME_OFF_MAX_DAYS):
            params = {
                "startDate": lo.isoformat(),
                "endDate": hi.isoformat(),
                "statuses": ["approved", "pending", "denied"],  # every status the spec has
            }
            listed, whole = complete_listing(client.pages(TIME_OFF_REQUESTS, params), progress.page)
            complete = complete and whole
            rows.update((str(r["id"]), _time_off_row(r)) for r in listed)
        changed = [live(r) for r in only_changed(list(rows.values()), "id")]
        # the loaded requests the range covers: the ones the provider would return
        overlapping = (
            "cast(start_date as varchar) <= %s and cast(end_date as varchar) >= %s",
            (last.isoformat(), first.isoformat()),
        )
        gone = vanished("time_off_requests", "id", set(rows), complete, int(now), *overlapping)
        progress.done(f" in {first}..{last} ({len(changed)} new or changed, {len(gone)} deleted)")
        state["backfilled"] = True
        arrow = ArrowRows("time_off_requests", TIME_OFF_COLUMNS, client.stats.untyped_values)
        for batch in (changed, gone):
            if batch:
                yield arrow.to_arrow(batch)

    return _time_off_requests


def _time_off_row(record: dict[str, Any]) -> dict[str, Any]:
    duration = record.get("duration") or {}
    return {
        "id": str(record["id"]),
        "policy_type_id": record.get("policyTypeId"),
        "user_id": record.get("userId"),
        "time_clock_id": record.get("timeClockId"),
        "is_all_day": record.get("isAllDay"),
        "start_date": record.get("startDate"),
        "end_date": record.get("endDate"),
        "start_time": record.get("startTime"),
        "end_time": record.get("endTime"),
        "timezone": record.get("timezone"),
        "status": record.get("status"),
        "duration_units": duration.get("units"),
        "duration_amount": duration.get("amount"),
        "employee_note": record.get("employeeNote"),
        "manager_note": record.get("managerNote"),
    }


def named_listing(
    client: ConnecteamClient, name: str, listing: Callable[[], list[dict[str, Any]]]
) -> DltResource:
    """``name``: the records of an unpaged ``{id, name, isArchived}`` listing (time clocks, task
    boards), merged on ``id``; only changed ones load (the endpoints have no timestamps); one
    the listing no longer holds is marked deleted."""

    @dlt.resource(
        name=name, primary_key="id", write_disposition="merge", columns=hints(DELETION_MARK)
    )
    def _listing() -> Iterator[pa.Table]:
        rows = [{"id": r["id"], "name": r.get("name"), "is_archived": r.get("isArchived")}
                for r in listing()]  # fmt: skip
        changed = [live(r) for r in only_changed(rows, "id")]
        gone = vanished(name, "id", {str(r["id"]) for r in rows}, True, int(clock_now()))
        arrow = ArrowRows(name, DELETION_MARK, client.stats.untyped_values)
        for batch in (changed, gone):
            if batch:
                yield arrow.to_arrow(batch)

    return _listing


TASK_COLUMNS: dict[str, str] = {
    "user_ids": JSON,
    "label_ids": JSON,
    "sub_tasks": JSON,
    "description": JSON,
    "start_time": BIGINT,
    "due_date": BIGINT,
    **DELETION_MARK,
}


def tasks(client: ConnecteamClient, board_list: Callable[[], list[dict[str, Any]]]) -> DltResource:
    """``tasks``: every task of every board (``status=all``), merged on ``id``; only new or
    changed ones load. A loaded task no longer listed is marked deleted when its board's tasks
    were listed completely, or when its board is no longer listed at all; never when its
    board's listing failed (404: the board vanished since it was listed)."""

    @dlt.resource(
        name="tasks",
        primary_key="id",
        write_disposition="merge",
        parallelized=True,
        columns=hints(TASK_COLUMNS),
    )
    def _tasks() -> Iterator[pa.Table]:
        rows = []
        unlisted: list[int] = []  # boards whose tasks were not (completely) listed
        for board in board_list():
            board_id = int(board["id"])
            try:
                progress = Progress(f"tasks[{board_id}]", logger=logger)
                listed, complete = complete_listing(
                    client.pages(TASKS, {"status": "all"}, {"taskBoardId": board_id}),
                    progress.page,
                )
                rows += [_task_row(board_id, t) for t in listed]
                if not complete:
                    unlisted.append(board_id)
                progress.done()
            except ParentNotFoundError as exc:
                client.skip_parent(exc, "tasks")
                unlisted.append(board_id)
        changed = [live(r) for r in only_changed(rows, "id")]
        where = (
            "task_board_id is null or task_board_id not in ({})".format(
                ", ".join(["%s"] * len(unlisted))
            )
            if unlisted
            else "true"
        )
        seen = {r["id"] for r in rows}
        gone = vanished("tasks", "id", seen, True, int(clock_now()), where, tuple(unlisted))
        arrow = ArrowRows("tasks", TASK_COLUMNS, client.stats.untyped_values)
        for batch in (changed, gone):
            if batch:
                yield arrow.to_arrow(batch)

    return _tasks


def _task_row(board_id: int, task: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(task["id"]),
        "task_board_id": board_id,
        "title": task.get("title"),
        "status": task.get("status"),
        "type": task.get("type"),
        "start_time": task.get("startTime"),
        "due_date": task.get("dueDate"),
        "is_archived": task.get("isArchived"),
        "user_ids": task.get("userIds") or [],
        "label_ids": task.get("labelIds") or [],
        "sub_tasks": task.get("subTasks") or [],
        "description": task.get("description") or [],
    }


def user_custom_field_definitions(client: ConnecteamClient) -> DltResource:
    """``user_custom_field_definitions``: the account's user custom fields (type, category,
    dropdown options), merged on ``id``; only changed ones load; one the complete listing no
    longer holds is marked deleted."""
    columns = {"dropdown_options": JSON, **DELETION_MARK}

    @dlt.resource(
        name="user_custom_field_definitions",
        primary_key="id",
        write_disposition="merge",
        columns=hints(columns),
    )
    def _definitions() -> Iterator[pa.Table]:
        progress = Progress("user_custom_field_definitions", logger=logger)
        listed, complete = complete_listing(
            client.pages(USER_CUSTOM_FIELD_DEFINITIONS), progress.page
        )
        rows = [
            {
                "id": f["id"],
                "name": f.get("name"),
                "type": f.get("type", "dropdown"),
                "category_id": f.get("categoryId"),
                "is_required": f.get("isRequired"),
                "is_multi_select": f.get("isMultiSelect"),
                "dropdown_options": f.get("dropdownOptions") or [],
                "is_visible_to_users": f.get("isVisibleToUsers"),
                "is_editable_for_users": f.get("isEditableForUsers"),
            }
            for f in listed
        ]
        changed = [live(r) for r in only_changed(rows, "id")]
        seen = {str(r["id"]) for r in rows}
        gone = vanished("user_custom_field_definitions", "id", seen, complete, int(clock_now()))
        progress.done(f" ({len(changed)} new or changed, {len(gone)} deleted)")
        arrow = ArrowRows("user_custom_field_definitions", columns, client.stats.untyped_values)
        for batch in (changed, gone):
            if batch:
                yield arrow.to_arrow(batch)

    return _definitions
