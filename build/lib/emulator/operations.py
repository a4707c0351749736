"""The emulator's operations endpoints (spec paths, parameters, maxima and 422s):

* ``GET /time-clock/v1/time-clocks`` (not paged)
* ``GET /time-clock/v1/time-clocks/{timeClockId}/time-activities`` (not paged; ``startDate`` and
  ``endDate`` required, ``YYYY-MM-DD``, at most 92 days inclusive, per
  ``tests/data/provider-notes.md``)
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

import re
from datetime import date
from enum import StrEnum
from typing import Annotated, Any

from fastapi import FastAPI, Path, Query
from fastapi.responses import Response

from .auth import requirement
from .operations_data import Operations
from .responses import envelope, invalid, json_response, paged
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


def parse_window(start: str, end: str, max_days: int) -> tuple[date, date] | Response:
    """``(first, last)`` dates of a ``YYYY-MM-DD`` window, or the 422 the provider answers."""
    for name, value in (("startDate", start), ("endDate", end)):
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return invalid(["query", name], "dates must be YYYY-MM-DD")
    try:
        first, last = date.fromisoformat(start), date.fromisoformat(end)
    except ValueError:
        return invalid(["query", "startDate"], "dates must be YYYY-MM-DD")
    if last < first:
        return invalid(["query", "endDate"], "endDate must not be before startDate")
    if (last - first).days + 1 > max_days:
        return invalid(["query", "endDate"], f"the date range may not exceed {max_days} days")
    return first, last


def add_operations_routes(app: FastAPI, state: EmulatorState) -> None:
    """Register the operations endpoints on ``app`` (see the module docstring)."""

    def ops() -> Operations:
        return state.dataset.operations

    def require(scope_name: str) -> Any:
        return requirement(state, scope_name)

    def page(key: str, rows: list[dict[str, Any]], offset: int, limit: int) -> Response:
        return paged(key, rows, offset, limit, state.options.paging_total)

    @app.get("/time-clock/v1/time-clocks", dependencies=[require("time_clock.read")])
    async def get_time_clocks() -> Response:
        return envelope({"timeClocks": list(ops().time_clocks.values())})

    @app.get(
        "/time-clock/v1/time-clocks/{timeClockId}/time-activities",
        dependencies=[require("time_clock.read")],
    )
    async def get_time_activities(
        timeClockId: Annotated[int, Path()],  # noqa: N803 - the provider's names
        startDate: Annotated[str, Query()],  # noqa: N803
        endDate: Annotated[str, Query()],  # noqa: N803
    ) -> Response:
        if timeClockId not in ops().time_clocks:
            return json_response({"detail": f"Time clock {timeClockId} not found"}, 404)
        window = parse_window(startDate, endDate, WINDOW_DAYS["time-activities"])
        if isinstance(window, Response):
            return window
        return envelope({"timeActivitiesByUsers": ops().time_activities(timeClockId, *window)})

    @app.get(
        "/time-clock/v1/time-clocks/{timeClockId}/timesheet",
        dependencies=[require("time_clock.read")],
    )
    async def get_timesheet(
        timeClockId: Annotated[int, Path()],  # noqa: N803
        startDate: Annotated[str, Query()],  # noqa: N803
        endDate: Annotated[str, Query()],  # noqa: N803
    ) -> Response:
        if timeClockId not in ops().time_clocks:
            return json_response({"detail": f"Time clock {timeClockId} not found"}, 404)
        window = parse_window(startDate, endDate, WINDOW_DAYS["timesheet"])
        if isinstance(window, Response):
            return window
        users = ops().timesheet(timeClockId, *window)
        return envelope({"startDate": startDate, "endDate": endDate, "users": users})

    @app.get(
        "/time-clock/v1/time-clocks/{timeClockId}/manual-breaks",
        dependencies=[require("time_clock.read")],
    )
    async def get_manual_breaks(timeClockId: Annotated[int, Path()]) -> Response:  # noqa: N803
        if timeClockId not in ops().time_clocks:
            return json_response({"detail": f"Time clock {timeClockId} not found"}, 404)
        policies = ops().manual_breaks.get(timeClockId, [])
        return envelope({"manualBreaks": policies, "areManualBreaksEnabled": bool(policies)})

    @app.get("/forms/v1/forms/{formId}/form-submissions", dependencies=[require("forms.read")])
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
        wanted = set(userIds or [])
        rows = [
            s
            for s in ops().form_submissions.get(formId, [])
            if (submittingStartTimestamp is None
                or s["submissionTimestamp"] >= submittingStartTimestamp)
            and (submittingEndTime is None or s["submissionTimestamp"] <= submittingEndTime)
            and (not wanted or s["submittingUserId"] in wanted)
        ]  # fmt: skip
        return page("formSubmissions", rows, offset, limit)

    @app.get("/jobs/v1/jobs", dependencies=[require("jobs.read")])
    async def get_jobs(
        limit: Annotated[int, Query(ge=1, le=500)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
        includeDeleted: bool = True,  # noqa: N803
    ) -> Response:
        rows = [j for j in ops().jobs if includeDeleted or not j.get("isDeleted", False)]
        return page("jobs", rows, offset, limit)

    @app.get("/time-off/v1/policy-types", dependencies=[require("time_off.read")])
    async def get_policy_types() -> Response:
        return envelope({"policyTypes": ops().policy_types})

    @app.get("/time-off/v1/requests", dependencies=[require("time_off.read")])
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
        first, last = (d.isoformat() for d in window)
        wanted_status = {s.value for s in statuses or [TimeOffStatus.approved]}
        wanted_users = set(userIds or [])
        rows = [
            r
            for r in ops().time_off_requests
            if r["status"] in wanted_status
            and r["startDate"] <= last
            and r["endDate"] >= first
            and (not wanted_users or r["userId"] in wanted_users)
        ]
        return page("requests", rows, offset, limit)

    @app.get("/tasks/v1/taskboards", dependencies=[require("quick_tasks.read")])
    async def get_task_boards() -> Response:
        return envelope({"taskBoards": list(ops().task_boards.values())})

    @app.get("/tasks/v1/taskboards/{taskBoardId}/tasks", dependencies=[require("quick_tasks.read")])
    async def get_tasks(
        taskBoardId: Annotated[str, Path()],  # noqa: N803
        status: TaskStatusFilter = TaskStatusFilter.all,
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        board = int(taskBoardId) if taskBoardId.isdigit() else -1
        if board not in ops().task_boards:
            return json_response({"detail": f"Task board {taskBoardId} not found"}, 404)
        rows = [
            t
            for t in ops().tasks[board]
            if status is TaskStatusFilter.all or t["status"] == status.value
        ]
        return page("tasks", rows, offset, limit)

    @app.get("/users/v1/custom-fields", dependencies=[require("users.read")])
    async def get_custom_fields(
        limit: Annotated[int, Query(ge=1, le=500)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        return page("customFields", ops().custom_fields, offset, limit)
