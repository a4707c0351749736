"""The emulator's operations endpoints (spec paths, parameters, maxima and 422s):

* ``GET /time-clock/v1/time-clocks`` (not paged)
* ``GET /time-clock/v1/time-clocks/{timeClockId}/time-activities`` (not paged; ``startDate`` and
  ``endDate`` required, ``YYYY-MM-DD``, at most 92 days inclusive, per
  ``sources/connecteam/spec/provider-notes.md``)
* ``GET /time-clock/v1/time-clocks/{timeClockId}/timesheet`` (not paged; at most 45 days)
* ``GET /time-clock/v1/time-clocks/{timeClockId}/manual-breaks`` (not paged)
* ``GET /forms/v1/forms/{formId}/form-submissions`` (limit <= 100; ``submittingStartTimestamp``
  inclusive, ``submittingEndTime``), oldest submission first
* ``GET /jobs/v1/jobs`` (limit <= 500, ``includeDeleted`` default true; sub-jobs nested)
* ``GET /time-off/v1/requests`` (limit <= 100; ``startDate``/``endDate`` required, at most 365
  days inclusive; ``statuses`` repeated, default ``approved``; requests overlapping the range)
* ``GET /time-off/v1/policy-types``, ``GET /tasks/v1/taskboards`` (not paged)
* ``GET /tasks/v1/taskboards/{taskBoardId}/tasks`` (limit <= 100, ``status`` default ``all``)
* ``GET /users/v1/custom-fields`` (limit <= 500)

A window wider than its maximum, an end before the start or a date not in ``YYYY-MM-DD`` is a
422 ``HTTPValidationError`` naming the parameter. Windows count days inclusively: a 92-day
window is ``startDate`` .. ``startDate + 91 days``.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Annotated, Any

from fastapi import FastAPI, Path, Query
from fastapi.responses import Response

from .auth import requirement
from .operations_data import Operations
from .responses import envelope, json_response, paged, parse_window
from .state import EmulatorState

WINDOW_DAYS = {"time-activities": 92, "timesheet": 45, "time-off": 365}


class TimeOffStatus(StrEnum):
    approved = "approved"
    pending = "pending"
    denied = "denied"


class TaskStatusFilter(StrEnum):
    draft = "draft"
    published = "published"
    completed = "completed"
    all = "all"


def add_operations_routes(app: FastAPI, state: EmulatorState) -> None:
    """Register the operations endpoints on ``app`` (see the module docstring)."""
    _add_time_clock_routes(app, state)
    _add_form_job_and_field_routes(app, state)
    _add_time_off_and_task_routes(app, state)


def _page(
    state: EmulatorState, key: str, rows: list[dict[str, Any]], offset: int, limit: int
) -> Response:
    return paged(key, rows, offset, limit, state.options.paging_total)


def _unknown_clock(state: EmulatorState, time_clock_id: int) -> Response | None:
    """404 for a time clock the account does not hold, else ``None``."""
    if time_clock_id in state.dataset.operations.time_clocks:
        return None
    return json_response({"detail": f"Time clock {time_clock_id} not found"}, 404)


def _add_time_clock_routes(app: FastAPI, state: EmulatorState) -> None:
    """The time clocks, their time activities, timesheets and manual-break policies."""
    scope = requirement(state, "time_clock.read")

    @app.get("/time-clock/v1/time-clocks", dependencies=[scope])
    async def get_time_clocks() -> Response:
        return envelope({"timeClocks": list(state.dataset.operations.time_clocks.values())})

    @app.get("/time-clock/v1/time-clocks/{timeClockId}/time-activities", dependencies=[scope])
    async def get_time_activities(
        timeClockId: Annotated[int, Path()],  # noqa: N803 - the provider's names
        startDate: Annotated[str, Query()],  # noqa: N803
        endDate: Annotated[str, Query()],  # noqa: N803
    ) -> Response:
        window = _unknown_clock(state, timeClockId) or parse_window(
            startDate, endDate, WINDOW_DAYS["time-activities"]
        )
        if isinstance(window, Response):
            return window
        activities = state.dataset.operations.time_activities(timeClockId, *window)
        return envelope({"timeActivitiesByUsers": activities})

    @app.get("/time-clock/v1/time-clocks/{timeClockId}/timesheet", dependencies=[scope])
    async def get_timesheet(
        timeClockId: Annotated[int, Path()],  # noqa: N803
        startDate: Annotated[str, Query()],  # noqa: N803
        endDate: Annotated[str, Query()],  # noqa: N803
    ) -> Response:
        window = _unknown_clock(state, timeClockId) or parse_window(
            startDate, endDate, WINDOW_DAYS["timesheet"]
        )
        if isinstance(window, Response):
            return window
        users = state.dataset.operations.timesheet(timeClockId, *window)
        return envelope({"startDate": startDate, "endDate": endDate, "users": users})

    @app.get("/time-clock/v1/time-clocks/{timeClockId}/manual-breaks", dependencies=[scope])
    async def get_manual_breaks(timeClockId: Annotated[int, Path()]) -> Response:  # noqa: N803
        unknown = _unknown_clock(state, timeClockId)
        if unknown is not None:
            return unknown
        policies = state.dataset.operations.manual_breaks.get(timeClockId, [])
        return envelope({"manualBreaks": policies, "areManualBreaksEnabled": bool(policies)})


def _add_form_job_and_field_routes(app: FastAPI, state: EmulatorState) -> None:
    """Form submissions, jobs and the users' custom field definitions."""

    @app.get(
        "/forms/v1/forms/{formId}/form-submissions",
        dependencies=[requirement(state, "forms.read")],
    )
    async def get_form_submissions(
        formId: Annotated[int, Path(ge=1)],  # noqa: N803
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
        submittingStartTimestamp: int | None = None,  # noqa: N803
        submittingEndTime: int | None = None,  # noqa: N803
        userIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
    ) -> Response:
        if formId not in state.dataset.forms:
            return json_response({"detail": f"Form {formId} not found"}, 404)
        rows = form_submissions(state.dataset.operations, formId, submittingStartTimestamp,
                                submittingEndTime, userIds)  # fmt: skip
        return _page(state, "formSubmissions", rows, offset, limit)

    @app.get("/jobs/v1/jobs", dependencies=[requirement(state, "jobs.read")])
    async def get_jobs(
        limit: Annotated[int, Query(ge=1, le=500)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
        includeDeleted: bool = True,  # noqa: N803
    ) -> Response:
        jobs = state.dataset.operations.jobs
        rows = [j for j in jobs if includeDeleted or not j.get("isDeleted", False)]
        return _page(state, "jobs", rows, offset, limit)

    @app.get("/users/v1/custom-fields", dependencies=[requirement(state, "users.read")])
    async def get_custom_fields(
        limit: Annotated[int, Query(ge=1, le=500)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        fields = state.dataset.operations.custom_fields
        return _page(state, "customFields", fields, offset, limit)


def form_submissions(
    ops: Operations,
    form_id: int,
    start: int | None,
    end: int | None,
    user_ids: list[int] | None,
) -> list[dict[str, Any]]:
    """The submissions of ``form_id`` submitted within ``start`` .. ``end`` (epoch seconds,
    both inclusive, either open) by one of ``user_ids`` (any when none), oldest first."""
    wanted = set(user_ids or [])
    return [
        s
        for s in ops.form_submissions.get(form_id, [])
        if (start is None or s["submissionTimestamp"] >= start)
        and (end is None or s["submissionTimestamp"] <= end)
        and (not wanted or s["submittingUserId"] in wanted)
    ]


def _add_time_off_and_task_routes(app: FastAPI, state: EmulatorState) -> None:
    """Time-off policy types and requests, task boards and their tasks."""
    time_off, tasks = requirement(state, "time_off.read"), requirement(state, "quick_tasks.read")

    @app.get("/time-off/v1/policy-types", dependencies=[time_off])
    async def get_policy_types() -> Response:
        return envelope({"policyTypes": state.dataset.operations.policy_types})

    @app.get("/time-off/v1/requests", dependencies=[time_off])
    async def get_time_off_requests(
        startDate: Annotated[str, Query()],  # noqa: N803
        endDate: Annotated[str, Query()],  # noqa: N803
        statuses: Annotated[list[TimeOffStatus] | None, Query()] = None,
        userIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        window = parse_window(startDate, endDate, WINDOW_DAYS["time-off"])
        if isinstance(window, Response):
            return window
        rows = time_off_requests(state.dataset.operations, window, statuses, userIds)
        return _page(state, "requests", rows, offset, limit)

    @app.get("/tasks/v1/taskboards", dependencies=[tasks])
    async def get_task_boards() -> Response:
        return envelope({"taskBoards": list(state.dataset.operations.task_boards.values())})

    @app.get("/tasks/v1/taskboards/{taskBoardId}/tasks", dependencies=[tasks])
    async def get_tasks(
        taskBoardId: Annotated[str, Path()],  # noqa: N803
        status: TaskStatusFilter = TaskStatusFilter.all,
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        ops = state.dataset.operations
        board = int(taskBoardId) if taskBoardId.isdigit() else -1
        if board not in ops.task_boards:
            return json_response({"detail": f"Task board {taskBoardId} not found"}, 404)
        rows = [
            t for t in ops.tasks[board]
            if status is TaskStatusFilter.all or t["status"] == status.value
        ]  # fmt: skip
        return _page(state, "tasks", rows, offset, limit)


def time_off_requests(
    ops: Operations,
    window: tuple[date, date],
    statuses: list[TimeOffStatus] | None,
    user_ids: list[int] | None,
) -> list[dict[str, Any]]:
    """The time-off requests overlapping ``window`` (first and last day, inclusive) in one of
    ``statuses`` (default ``approved``), of one of ``user_ids`` (any when none)."""
    first, last = (d.isoformat() for d in window)
    wanted_status = {s.value for s in statuses or [TimeOffStatus.approved]}
    wanted_users = set(user_ids or [])
    return [
        r
        for r in ops.time_off_requests
        if r["status"] in wanted_status
        and r["startDate"] <= last
        and r["endDate"] >= first
        and (not wanted_users or r["userId"] in wanted_users)
    ]
