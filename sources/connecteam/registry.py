"""The stream registry: every stream of the ``connecteam`` source, declared once.

Each :class:`Stream` names a warehouse table of dataset ``connecteam`` and the provider's list
endpoint behind it. Everything else derives from :data:`STREAMS`: the source's resources
(:mod:`sources.connecteam.resources`), the sync's stream list (``pipelines.sync.STREAMS``), the
nightly flow's task groups (:data:`TASK_GROUPS`), the OAuth 2.0 scopes (:func:`oauth_scopes`),
the freshness columns ``status`` and the dbt sources read, the stream table of docs/streams.md
(:func:`markdown_table`) and the tests' expectations.

Paths, data keys, page maxima, id fields and scopes come from the provider's published OpenAPI
spec (``spec/connecteam-openapi.json``); the beta ``user_documents`` listing is not in it
(its shape follows ``spec/provider-notes.md`` and the emulator's documented choices).

What a stream declares is :class:`~.stream.Stream` (:mod:`sources.connecteam.stream`).
Adding a stream: one :class:`Stream` below, plus its resource and row mapping in a domain
module of :mod:`sources.connecteam.resources` (a new domain is a new module there, found without
being listed; a test fails until both exist).
"""

from __future__ import annotations

from collections.abc import Iterable

from .stream import DIGEST, SINCE, SNAPSHOT, WINDOW, Incremental, Stream, Window

__all__ = [
    "COVERAGE_TABLE",
    "DEFAULT_BASE_URL",
    "DIGEST",
    "OAUTH_SCOPES",
    "OAUTH_TOKEN_PATH",
    "SCOPE_BY_PATH",
    "SHIFT_COVERAGE_TABLE",
    "SINCE",
    "SNAPSHOT",
    "STREAMS",
    "TASK_COVERAGE_TABLE",
    "TASK_GROUPS",
    "WINDOW",
    "Incremental",
    "Stream",
    "Window",
    "markdown_table",
    "oauth_scopes",
]


FORM_SUBMISSIONS_DAYS_BACK = 7
"""Days before the newest loaded form submission every run re-reads per form, to pick up edits
the provider's timestamps do not show (``SOURCES__CONNECTEAM__FORM_SUBMISSIONS_DAYS_BACK``)."""

_STREAMS = (
    Stream(
        "users", "/users/v1/users", "users", 500, ("userId",), ("user_id",), SINCE, "users",
        "users.read", ("modified_at",), query="?userStatus=all", sort="created_at",
        loads="users modified from the second of the newest `modifiedAt` already loaded (the "
        "API's own filter)",
        item_key="userId:int",
    ),
    Stream(
        "forms", "/forms/v1/forms", "forms", 300, ("formId",), ("form_id",), DIGEST, "forms",
        "forms.read", ("last_updated_at",), loads="forms whose record changed (digest)",
        item_key="formId:int",
    ),
    Stream(
        "schedulers", "/scheduler/v1/schedulers", "schedulers", None, ("schedulerId",),
        ("scheduler_id",), DIGEST, "schedulers", "schedule.read",
        loads="schedulers whose record changed (digest)",
        item_key="schedulerId:int",
    ),
    Stream(
        "shifts", "/scheduler/v1/schedulers/{schedulerId}/shifts", "shifts", 500,
        ("schedulerId", "id"), ("scheduler_id", "id"), WINDOW, "schedulers", "schedule.read",
        ("update_time", "creation_time"), Window(30, 90, anchor="now"), parent="schedulers",
        sort="created_at",
        loads="new and changed shift rows in the window, and deletions; one row per assigned "
        "user (V1), or per shift with every user from `GET /scheduler/v2/...` with "
        "`shifts_api_version = 2` (accounts on V2 webhooks)",
        item_key="id:str",
    ),
    # Beta, absent from the spec file: envelope, page maximum and record shape as the emulator
    # documents them (``emulator/app.py``). No OAuth scope is asked for it: the spec's OAuth 2.0
    # scheme defines no ``documents.*`` read scope (the only documents scope the reference
    # names is ``documents.write``, for the entry PUT: a write permission a read-only sync must
    # not ask for), and an undefined name such as ``documents.read`` would make a provider that
    # refuses unknown scopes (RFC 6749 §5.2 ``invalid_scope``) refuse the whole token. When the
    # provider refuses an OAuth token the listing (403), only ``user_documents`` fails, named
    # in the sync's failed streams; an API key reads it.
    Stream(
        "user_documents", "/documents/v1/user-documents", "userDocuments", 100, ("id",), ("id",),
        DIGEST, "user_documents", None, ("updated_at",), in_spec=False,
        loads="user documents whose record changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "time_clocks", "/time-clock/v1/time-clocks", "timeClocks", None, ("id",), ("id",), DIGEST,
        "time_clocks", "time_clock.read", loads="clocks whose record changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "time_activities", "/time-clock/v1/time-clocks/{timeClockId}/time-activities",
        "timeActivitiesByUsers", None, ("id",), ("id",), WINDOW, "time_clocks",
        "time_clock.read", ("modified_at",),
        Window(35, 1, max_days=92, note=" (UTC dates; a clock east of UTC is already there)"),
        parent="time_clocks", key_note=" (activity)",
        loads="one row per shift punch, manual break or time off (user, start/end epoch UTC + "
        "timezone name, job, `modifiedAt`); new and changed rows, and deletions",
        item_key="userId:int",
    ),
    Stream(
        "timesheets", "/time-clock/v1/time-clocks/{timeClockId}/timesheet", "users", None,
        ("userId", "date"), ("id",), WINDOW, "time_clocks", "time_clock.read",
        window=Window(35, 1, max_days=45), parent="time_clocks", key_note=" = clock:user:date",
        loads="one row per user × day with hour totals; new and changed, and deletions",
        item_key="userId:int",
    ),
    Stream(
        "manual_breaks", "/time-clock/v1/time-clocks/{timeClockId}/manual-breaks",
        "manualBreaks", None, ("id",), ("manual_break_key",), DIGEST, "time_clocks",
        "time_clock.read", parent="time_clocks", key_note=" = clock:manual break",
        loads="each clock's manual-break policies (`name`, `isPaid`, `duration` in minutes) "
        "whose record changed (digest); a break's `manualBreakId` names its policy",
        item_key="id:str",
    ),
    Stream(
        "form_submissions", "/forms/v1/forms/{formId}/form-submissions", "formSubmissions", 100,
        ("formSubmissionId",), ("form_submission_id",), SINCE, "forms", "forms.read",
        ("submission_timestamp",), parent="forms",
        loads=f"per form, submissions from {FORM_SUBMISSIONS_DAYS_BACK} days before the newest "
        "`submissionTimestamp` loaded (`submittingStartTimestamp`) that are new or changed "
        "(digest: edits, manager fields); answers as JSON with their `questionType`",
        item_key="formSubmissionId:str",
    ),
    Stream(
        "jobs", "/jobs/v1/jobs", "jobs", 500, ("jobId",), ("job_id",), DIGEST, "operations",
        "jobs.read", query="?includeDeleted=true",
        loads="jobs and sub-jobs (`parent_job_id`) whose record changed (digest)",
        item_key="jobId:str",
    ),
    Stream(
        "time_off_requests", "/time-off/v1/requests", "requests", 100, ("id",), ("id",), DIGEST,
        "operations", "time_off.read", window=Window(35, 180, max_days=365),
        query=", every status", loads="requests whose record changed (digest)",
        item_key="id:str",
    ),
    Stream(
        "task_boards", "/tasks/v1/taskboards", "taskBoards", None, ("id",), ("id",), DIGEST,
        "operations", "quick_tasks.read", loads="boards whose record changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "tasks", "/tasks/v1/taskboards/{taskBoardId}/tasks", "tasks", 100, ("id",), ("id",),
        DIGEST, "operations", "quick_tasks.read", parent="task_boards", query="?status=all",
        loads="tasks whose record changed (digest)",
        item_key="id:str",
    ),
    Stream(
        "user_custom_field_definitions", "/users/v1/custom-fields", "customFields", 500, ("id",),
        ("id",), DIGEST, "users", "users.read", sort="id",
        loads="definitions whose record changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "smart_groups", "/users/v1/smart-groups", "groups", None, ("id",), ("id",), DIGEST,
        "users", "users.read",
        loads="groups (departments, locations, teams: what users' `smartGroupsIds` name) whose "
        "record changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "smart_group_segments", "/users/v1/smart-group-segments", "segments", None, ("id",),
        ("id",), DIGEST, "users", "users.read", loads="segments whose record changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "user_custom_field_categories", "/users/v1/custom-field-categories", "categories", 500,
        ("id",), ("id",), DIGEST, "users", "users.read",
        loads="categories (what a definition's `category_id` names) whose record changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "user_custom_field_options", "/users/v1/custom-fields/{customFieldId}/options", "options",
        100, ("customFieldId", "id"), ("user_custom_field_option_key",), DIGEST, "users",
        "users.read", parent="user_custom_field_definitions", key_note=" = field:option",
        loads="each dropdown field's options (the labels of the ids users' values hold) whose "
        "record changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "shift_layers", "/scheduler/v1/schedulers/{schedulerId}/shift-layers", "shiftLayers",
        None, ("schedulerId", "id"), ("shift_layer_key",), DIGEST, "schedulers",
        "schedule.read", parent="schedulers", key_note=" = scheduler:layer",
        loads="each scheduler's shift layers (position, location, department...) whose record "
        "changed (digest)",
        item_key="id:str",
    ),
    Stream(
        "shift_layer_values",
        "/scheduler/v1/schedulers/{schedulerId}/shift-layers/{layerId}/values", "values", 500,
        ("schedulerId", "layerId", "id"), ("shift_layer_value_key",), DIGEST, "schedulers",
        "schedule.read", parent="shift_layers", key_note=" = scheduler:layer:value",
        loads="each layer's values (`displayName`) whose record changed (digest)",
        item_key="id:str",
    ),
    Stream(
        "shift_custom_fields", "/scheduler/v1/schedulers/{schedulerId}/custom-fields",
        "customFields", 100, ("schedulerId", "id"), ("shift_custom_field_key",), DIGEST,
        "schedulers", "schedule.read", parent="schedulers", key_note=" = scheduler:field",
        loads="each scheduler's shift custom fields (type, dropdown options) whose record "
        "changed (digest)",
        item_key="id:str",
    ),
    Stream(
        "scheduler_unavailabilities", "/scheduler/v1/schedulers/{schedulerId}/unavailabilities",
        "unavailabilities", 500, ("id",), ("scheduler_id", "id"), WINDOW, "schedulers",
        "schedule.read", window=Window(30, 90, anchor="now", note=" (the shifts' window)"),
        parent="schedulers",
        loads="new and changed unavailabilities whose day overlaps the window, and deletions",
        item_key="id:str",
    ),
    Stream(
        "pay_rates", "/pay-rates/v1/pay-rates", "payRatesByUsers", 500,
        ("userId", "payRate.effectiveDate"), ("pay_rate_key",), DIGEST, "pay", "pay_rates.read",
        ("modified_at", "created_at"), Window(35, 31, max_days=365), query="?isIncludeHistory=true",
        key_note=" = user:effective date:rate",
        loads="one row per user × effective date × rate (the default rate, each job and sub-job "
        "rate) in effect in the window; changed rows (digest) and deletions",
        item_key="userId:int,payRate.effectiveDate:str",
    ),
    Stream(
        "pay_rule_policies", "/company-policies/v1/pay-rule-policies", "payRulesPolicies", None,
        ("id",), ("id",), DIGEST, "pay", "company_policies.read",
        loads="policies whose record changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "time_off_policy_types", "/time-off/v1/policy-types", "policyTypes", None, ("id",),
        ("id",), DIGEST, "time_off_policies", "time_off.read",
        loads="policy types (with their policies) whose record changed (digest)",
        item_key="id:str",
    ),
    Stream(
        "time_off_balances", "/time-off/v1/policy-types/{policyTypeId}/balances", "balances",
        100, ("policyId", "userId"), ("balance_key",), SNAPSHOT, "time_off_policies",
        "time_off.read", parent="time_off_policy_types",
        key_note=" = policy type:policy:user:as-of date",
        loads="every balance, one row per user × policy per sync day (the day's last run wins)",
        item_key="policyId:str,userId:int",
    ),
    Stream(
        "onboarding_packs", "/onboarding/v1/packs", "packs", None, ("id",), ("id",), DIGEST,
        "onboarding", "onboarding.read", loads="packs whose record changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "onboarding_pack_assignments", "/onboarding/v1/packs/{packId}/assignments",
        "assignments", None, ("packId", "id"), ("onboarding_assignment_key",), DIGEST,
        "onboarding", "onboarding.read", parent="onboarding_packs",
        key_note=" = pack:assignment",
        loads="each pack's assignments (user, `status`, `isWaitingApproval`) whose record "
        "changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "sales_locations", "/sales/v1/locations", "locations", 1000, ("id",), ("id",), DIGEST,
        "sales", "sales_data.read", loads="locations whose record changed (digest)",
        item_key="id:int",
    ),
    Stream(
        "daily_sales", "/sales/v1/daily-sales", "dailySales", None, ("locationId", "date"),
        ("daily_sales_key",), WINDOW, "sales", "sales_data.read",
        window=Window(35, 35, note=" (the location's days; projections ahead)"),
        key_note=" = location:date",
        loads="one row per location × day with stored sales (`totalSales`, `projectedSales`; "
        "a day without data is not listed); new and changed rows, and deletions",
        item_key="locationId:int,date:str",
    ),
)  # fmt: skip

SHIFTS_V2_PATH = "/scheduler/v2/schedulers/{schedulerId}/shifts"
"""The V2 shift listing (one row per shift with every ``assignedUserIds``; same parameters, page
maximum and scope as V1): what ``shifts`` reads with ``shifts_api_version = 2``."""

STREAMS: dict[str, Stream] = {stream.name: stream for stream in _STREAMS}
"""Every stream, by name (= warehouse table in dataset ``connecteam``), in sync order."""

TASK_GROUPS: tuple[tuple[str, ...], ...] = tuple(
    tuple(s.name for s in _STREAMS if s.group == group)
    for group in dict.fromkeys(s.group for s in _STREAMS)
)
"""The nightly flow's task groups, in order: streams sharing a parent listing (forms and their
submissions, schedulers and shifts, time clocks and their activities and timesheets, task
boards and tasks) run in one task, so the listing is fetched once."""

COVERAGE_TABLE = "time_activity_coverage"
"""A table written with ``time_activities`` (no endpoint of its own): per time clock, what the
API pull covers."""

SHIFT_COVERAGE_TABLE = "shift_coverage"
"""A table written with ``shifts`` (no endpoint of its own): per scheduler, each window a run
pulled and when."""

TASK_COVERAGE_TABLE = "task_coverage"
"""A table written with ``tasks`` (no endpoint of its own): per task board, when a run last
listed its tasks completely."""

DEFAULT_BASE_URL = "https://api.connecteam.com"
"""The provider's global host; ``https://api-au.connecteam.com`` serves Australian accounts."""

OAUTH_TOKEN_PATH = "/oauth/v1/token"
"""The token endpoint of the OAuth 2.0 client-credentials grant."""


def oauth_scopes(streams: Iterable[str]) -> dict[str, list[str]]:
    """The OAuth 2.0 scopes syncing ``streams`` needs, each with the streams that need it.

    A stream's scope is its endpoint's (the spec's per-operation ``security``); a child stream's
    parent listing (schedulers for shifts, forms for submissions, time clocks for activities,
    timesheets and manual-break policies, task boards for tasks) needs the same scope as the
    child. Streams whose endpoint has no scope in the spec (``user_documents``) add none.

    Args:
        streams: Stream names (keys of :data:`STREAMS`).

    Returns:
        ``{scope: [stream, ...]}``, scopes and streams sorted; empty when no stream needs one.

    Raises:
        ValueError: An unknown stream name.
    """
    needs: dict[str, list[str]] = {}
    for stream in sorted(set(streams)):
        if stream not in STREAMS:
            raise ValueError(f"unknown stream {stream!r}; choose from {sorted(STREAMS)}")
        scope = STREAMS[stream].scope
        if scope is not None:
            needs.setdefault(scope, []).append(stream)
    return dict(sorted(needs.items()))


OAUTH_SCOPES = oauth_scopes(STREAMS)
"""Every stream's scope and the streams needing it: what a client asks for by default."""

SCOPE_BY_PATH = {s.path: s.scope for s in _STREAMS if s.scope}
"""The scope each list endpoint requires, by path template (named in 403 hints)."""


def markdown_table() -> str:
    """The stream table of docs/streams.md (GitHub Markdown), one row per stream in registry
    order, with ``shift_coverage`` after ``shifts``, ``time_activity_coverage`` after
    ``time_activities`` and ``task_coverage`` after ``tasks``."""
    lines = [
        "| table | endpoint (page maximum) | key | each run loads | window |",
        "|---|---|---|---|---|",
    ]
    for s in _STREAMS:
        limit = [] if s.in_spec else ["beta"]
        limit += [str(s.max_limit)] if s.max_limit is not None else []
        maximum = f" ({', '.join(limit)})" if limit else ""
        endpoint = f"`GET {s.path}{s.query}`" if s.query.startswith("?") else f"`GET {s.path}`"
        if s.query and not s.query.startswith("?"):
            endpoint += s.query
        key = ", ".join(f"`{k}`" for k in s.key) + s.key_note
        window = s.window.describe() if s.window else "-"
        lines.append(f"| `{s.name}` | {endpoint}{maximum} | {key} | {s.loads} | {window} |")
        if s.name == "shifts":
            lines.append(
                f"| `{SHIFT_COVERAGE_TABLE}` | (written with `shifts`) | `coverage_key` | "
                "each window a run pulled per scheduler (`window_from`, `window_to`) and when "
                "(`pulled_at`): shift webhooks newer than that apply over the API's rows | - |"
            )
        if s.name == "tasks":
            lines.append(
                f"| `{TASK_COVERAGE_TABLE}` | (written with `tasks`) | `task_board_id` | "
                "when a run last listed a board's tasks completely (`pulled_at`): a task webhook "
                "newer than that applies over the API's status | - |"
            )
        if s.name == "time_activities":
            lines.append(
                f"| `{COVERAGE_TABLE}` | (written with `time_activities`) | `time_clock_id` | "
                "what the API pull covers: `covered_from` (earliest start ever pulled), "
                "`window_from` (start of the window the last run re-pulled), `pulled_at` | - |"
            )
    return "\n".join(lines) + "\n"
