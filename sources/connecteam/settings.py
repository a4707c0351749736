"""Endpoint table of the Connecteam REST API streams that the ``connecteam`` source reads.

Every value here comes from the provider's published OpenAPI spec
(``shared/reference/connecteam-openapi.json``): the path, the key under ``data`` that holds the
records, the ``maximum`` of the operation's ``limit`` parameter, and the record's own id field.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_BASE_URL = "https://api.connecteam.com"
"""The provider's global host; ``https://api-au.connecteam.com`` serves Australian accounts."""

DEFAULT_SHIFTS_DAYS_BACK = 30
DEFAULT_SHIFTS_DAYS_AHEAD = 90
DAY_SECONDS = 86_400
BATCH_ROWS = 5_000
"""Rows per Arrow table handed to dlt: bounds the records held in memory between pages."""
BATCH_BYTES = 4 * 2**20
"""JSON bytes per Arrow table handed to dlt (estimated from sampled records): on wide records
(a shift as wide as the spec allows is ~9 KB) a batch ends here, well before ``BATCH_ROWS``."""


@dataclass(frozen=True)
class Endpoint:
    """One list endpoint of the provider.

    Attributes:
        path: Path below the base URL; ``{schedulerId}`` style placeholders are filled per parent.
        data_key: Key under the answer's ``data`` object that holds the list of records.
        max_limit: The spec's ``maximum`` for the ``limit`` query parameter; ``None`` when the
            endpoint is not paged.
        primary_key: The provider's id field(s) of one record, as the provider spells them.
        scope: The OAuth 2.0 scope the endpoint requires (the operation's ``security`` in the
            spec), or ``None`` when the spec defines none for it (see :data:`USER_DOCUMENTS`).
        in_spec: Whether the published OpenAPI spec has the endpoint (beta endpoints do not;
            their shape follows ``shared/reference/README.md`` and the emulator's documented
            choices).
    """

    path: str
    data_key: str
    max_limit: int | None
    primary_key: tuple[str, ...]
    scope: str | None
    in_spec: bool = True

    @property
    def paged(self) -> bool:
        """Whether the endpoint takes ``limit``/``offset``."""
        return self.max_limit is not None


USERS = Endpoint("/users/v1/users", "users", 500, ("userId",), "users.read")
FORMS = Endpoint("/forms/v1/forms", "forms", 300, ("formId",), "forms.read")
SCHEDULERS = Endpoint(
    "/scheduler/v1/schedulers", "schedulers", None, ("schedulerId",), "schedule.read"
)
SHIFTS = Endpoint(
    "/scheduler/v1/schedulers/{schedulerId}/shifts",
    "shifts",
    500,
    ("schedulerId", "id"),
    "schedule.read",
)

USER_DOCUMENTS = Endpoint(
    "/documents/v1/user-documents",
    "userDocuments",
    100,
    ("id",),
    None,
    in_spec=False,
)
"""Beta, absent from the spec file: envelope, page maximum and record shape as the emulator
documents them (``emulator/app.py``).

No OAuth scope is asked for it. The spec's OAuth 2.0 scheme defines no ``documents.*`` scope at
all, and the only documents scope the reference names is ``documents.write``, for the entry PUT
(``service-interface.md``): a write permission a read-only sync must not ask for. Asking for an
undefined name such as ``documents.read`` would make a provider that refuses unknown scopes
(RFC 6749 §5.2 ``invalid_scope``) refuse the whole token, and with it every stream. Whether a
token reaches the beta listing is therefore the OAuth app's grant: when the provider refuses it
(403), only ``user_documents`` fails, named in the sync's failed streams; an API key reads it."""

TIME_CLOCKS = Endpoint("/time-clock/v1/time-clocks", "timeClocks", None, ("id",), "time_clock.read")
TIME_ACTIVITIES = Endpoint(
    "/time-clock/v1/time-clocks/{timeClockId}/time-activities",
    "timeActivitiesByUsers",
    None,
    ("id",),
    "time_clock.read",
)
TIMESHEETS = Endpoint(
    "/time-clock/v1/time-clocks/{timeClockId}/timesheet",
    "users",
    None,
    ("userId", "date"),
    "time_clock.read",
)
FORM_SUBMISSIONS = Endpoint(
    "/forms/v1/forms/{formId}/form-submissions",
    "formSubmissions",
    100,
    ("formSubmissionId",),
    "forms.read",
)
JOBS = Endpoint("/jobs/v1/jobs", "jobs", 500, ("jobId",), "jobs.read")
TIME_OFF_REQUESTS = Endpoint("/time-off/v1/requests", "requests", 100, ("id",), "time_off.read")
TASK_BOARDS = Endpoint("/tasks/v1/taskboards", "taskBoards", None, ("id",), "quick_tasks.read")
TASKS = Endpoint(
    "/tasks/v1/taskboards/{taskBoardId}/tasks", "tasks", 100, ("id",), "quick_tasks.read"
)
USER_CUSTOM_FIELD_DEFINITIONS = Endpoint(
    "/users/v1/custom-fields", "customFields", 500, ("id",), "users.read"
)

TIME_ACTIVITIES_MAX_DAYS = 92
"""Widest ``startDate``..``endDate`` time-activities window, days inclusive (reference README)."""
TIMESHEET_MAX_DAYS = 45
"""Widest timesheet-totals window, days inclusive (spec: "limited to 45 days")."""
TIME_OFF_MAX_DAYS = 365
"""Widest time-off requests window, days inclusive (spec: "may not exceed 365 days")."""
DEFAULT_ACTIVITY_DAYS_BACK = 35
"""Days before today that every run re-pulls time activities and timesheets for (no
modified-since filter exists)."""
DEFAULT_TIME_OFF_DAYS_BACK = 35
DEFAULT_TIME_OFF_DAYS_AHEAD = 180

ENDPOINTS: dict[str, Endpoint] = {
    "users": USERS,
    "forms": FORMS,
    "schedulers": SCHEDULERS,
    "shifts": SHIFTS,
    "user_documents": USER_DOCUMENTS,
    "time_clocks": TIME_CLOCKS,
    "time_activities": TIME_ACTIVITIES,
    "timesheets": TIMESHEETS,
    "form_submissions": FORM_SUBMISSIONS,
    "jobs": JOBS,
    "time_off_requests": TIME_OFF_REQUESTS,
    "task_boards": TASK_BOARDS,
    "tasks": TASKS,
    "user_custom_field_definitions": USER_CUSTOM_FIELD_DEFINITIONS,
}
"""Stream name (= warehouse table in dataset ``connecteam``) to its endpoint."""

OAUTH_TOKEN_PATH = "/oauth/v1/token"


def oauth_scopes(streams: Iterable[str]) -> dict[str, list[str]]:
    """The OAuth 2.0 scopes syncing ``streams`` needs, each with the streams that need it.

    A stream's scope is its endpoint's (the spec's per-operation ``security``); a child stream's
    parent listing (schedulers for shifts, forms for submissions, time clocks for activities and
    timesheets, task boards for tasks) needs the same scope as the child. Streams whose endpoint
    has no scope in the spec (``user_documents``) add none.

    Args:
        streams: Stream names (keys of :data:`ENDPOINTS`).

    Returns:
        ``{scope: [stream, ...]}``, scopes and streams sorted; empty when no stream needs one.

    Raises:
        ValueError: An unknown stream name.
    """
    needs: dict[str, list[str]] = {}
    for stream in sorted(set(streams)):
        if stream not in ENDPOINTS:
            raise ValueError(f"unknown stream {stream!r}; choose from {sorted(ENDPOINTS)}")
        scope = ENDPOINTS[stream].scope
        if scope is not None:
            needs.setdefault(scope, []).append(stream)
    return dict(sorted(needs.items()))


OAUTH_SCOPES = oauth_scopes(ENDPOINTS)
"""Every stream's scope and the streams needing it: what a client asks for by default."""
