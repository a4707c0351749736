"""The provider's webhook event catalogue: every documented ``eventType``, its family, and where
its key fields sit.

Sources: the ``webhooks`` section of ``shared/reference/connecteam-openapi.json`` (41 events, named
by payload schema), ``shared/reference/service-interface.md`` (Events) and the newer events listed
in ``shared/reference/README.md`` (user add/edit/delete requests, admin declined
add/edit/delete requests, and the ``timesheet_period`` family), which carry only
``eventTimestamp``. The ``eventType`` strings of the user, task, form and chat events are the
provider's published names (developer.connecteam.com webhook guides); the spec leaves them open.

Every payload shares the envelope ``requestId, company, eventType, eventTimestamp,
evnetTimestamp (deprecated, may be absent), activityType``; the event fields follow at the top
level or under ``data``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

FAMILIES = (
    "time_activity",
    "timesheet_period",
    "availability",
    "shift",
    "user",
    "task",
    "form",
    "chat",
)
UNKNOWN_FAMILY = "unknown"


@dataclass(frozen=True)
class EventType:
    """One catalogued event.

    Attributes:
        event_type: The payload's ``eventType`` string.
        family: One of :data:`FAMILIES`.
        schema: The payload schema's name in the spec's components, or ``None`` for the newer
            events the spec file lacks.
        title: The provider's name for the event.
    """

    event_type: str
    family: str
    schema: str | None
    title: str


def _time_activity(name: str, schema: str | None, title: str) -> EventType:
    return EventType(name, "time_activity", schema, title)


_TA = "TimeActivity{}WebhookResponse"

CATALOGUE: dict[str, EventType] = {
    e.event_type: e
    for e in [
        _time_activity("clock_in", _TA.format("ClockIn"), "Time activity clock in"),
        _time_activity("clock_out", _TA.format("ClockOut"), "Time activity clock out"),
        _time_activity(
            "auto_clock_out", _TA.format("AutoClockOut"), "Time activity auto clock out"
        ),
        _time_activity("admin_add", _TA.format("AdminAdd"), "Time activity admin add"),
        _time_activity("admin_edit", _TA.format("AdminEdit"), "Time activity admin edit"),
        _time_activity("admin_delete", _TA.format("AdminDelete"), "Time activity admin delete"),
        _time_activity(
            "admin_approved_clock_out_outside_geo_fence_request",
            _TA.format("AdminApprovedClockOutOutsideGeoFenceRequest"),
            "Time activity admin approved clock out outside geo fence request",
        ),
        _time_activity(
            "admin_approved_add_request",
            _TA.format("AdminApprovedAddRequest"),
            "Time activity admin approved add request",
        ),
        _time_activity(
            "admin_approved_edit_request",
            _TA.format("AdminApprovedEditRequest"),
            "Time activity admin approved edit request",
        ),
        _time_activity(
            "admin_approved_delete_request",
            _TA.format("AdminApprovedDeleteRequest"),
            "Time activity admin approved delete request",
        ),
        _time_activity(
            "admin_declined_request",
            _TA.format("AdminDeclinedRequest"),
            "Time activity admin declined request",
        ),
        _time_activity(
            "auto_approved_add_request",
            _TA.format("AutoApprovedAddRequest"),
            "Time activity auto approved add request",
        ),
        _time_activity(
            "auto_approved_edit_request",
            _TA.format("AutoApprovedEditRequest"),
            "Time activity auto approved edit request",
        ),
        _time_activity(
            "auto_approved_delete_request",
            _TA.format("AutoApprovedDeleteRequest"),
            "Time activity auto approved delete request",
        ),
        _time_activity(
            "auto_approved_clock_out_outside_geo_fence_request",
            _TA.format("AutoApprovedClockOutOutsideGeoFenceRequest"),
            "Time activity auto approved clock out outside geo fence request",
        ),
        _time_activity(
            "admin_approved_clock_out_without_nfc_request",
            _TA.format("AdminApprovedClockOutWithoutNfcRequest"),
            "Time activity admin approved clock out without NFC request",
        ),
        _time_activity(
            "auto_approved_clock_out_without_nfc_request",
            _TA.format("AutoApprovedClockOutWithoutNfcRequest"),
            "Time activity auto approved clock out without NFC request",
        ),
        # Newer time-activity events (reference README; not in the spec file).
        _time_activity("user_add_request", None, "Time activity user add request"),
        _time_activity("user_edit_request", None, "Time activity user edit request"),
        _time_activity("user_delete_request", None, "Time activity user delete request"),
        _time_activity("admin_declined_add_request", None, "Time activity admin declined add"),
        _time_activity("admin_declined_edit_request", None, "Time activity admin declined edit"),
        _time_activity(
            "admin_declined_delete_request", None, "Time activity admin declined delete"
        ),
        # Timesheet-period family (reference README; not in the spec file).
        EventType("admin_day_locked", "timesheet_period", None, "Timesheet admin day locked"),
        EventType("admin_day_unlocked", "timesheet_period", None, "Timesheet admin day unlocked"),
        EventType(
            "user_timesheet_submitted", "timesheet_period", None, "Timesheet submitted by user"
        ),
        EventType(
            "user_timesheet_unsubmitted", "timesheet_period", None, "Timesheet unsubmitted by user"
        ),
        EventType("user_timesheet_approved", "timesheet_period", None, "Timesheet approved"),
        EventType("user_timesheet_reopened", "timesheet_period", None, "Timesheet reopened"),
        EventType(
            "availability_status_created",
            "availability",
            "AvailabilityCreatedStatusWebhookResponse",
            "Availability status created",
        ),
        EventType(
            "availability_status_deleted",
            "availability",
            "AvailabilityDeletedStatusWebhookResponse",
            "Availability status deleted",
        ),
        EventType("shift_created", "shift", "ShiftCreatedWebhookResponse", "Shifts created"),
        EventType("shift_updated", "shift", "ShiftUpdatedWebhookResponse", "Shifts updated"),
        EventType("shift_deleted", "shift", "ShiftDeletedWebhookResponse", "Shifts deleted"),
        EventType("user_created", "user", "UsersChangedWebhookResponse", "User created"),
        EventType("user_updated", "user", "UsersChangedWebhookResponse", "User updated"),
        EventType("user_deleted", "user", "UserIdWebhookResponse", "User deleted"),
        EventType("user_archived", "user", "UserIdWebhookResponse", "User archived"),
        EventType("user_restored", "user", "UserIdWebhookResponse", "User restored"),
        EventType("user_promoted", "user", "UserIdWebhookResponse", "User promoted"),
        EventType("user_demoted", "user", "UserIdWebhookResponse", "User demoted"),
        EventType("task_published", "task", "TaskChangedWebhookResponse", "Task Published"),
        EventType("task_completed", "task", "TaskChangedWebhookResponse", "Task Completed"),
        EventType(
            "pending_user_request_fulfilled",
            "task",
            "TaskChangedWebhookResponse",
            "Pending User Request Fulfilled",
        ),
        EventType("form_submission", "form", "FormSubmissionWebhookResponse", "Form Submission"),
        EventType(
            "form_submission_edited",
            "form",
            "FormSubmissionWebhookResponse",
            "Form submission Edited",
        ),
        EventType(
            "manager_field_updated",
            "form",
            "ManagerFieldUpdatedWebhookResponse",
            "Manager Field Updated",
        ),
        EventType("message_created", "chat", "ChatWebhookResponse", "Chat message created"),
        EventType("message_updated", "chat", "ChatWebhookResponse", "Chat message updated"),
        EventType("message_deleted", "chat", "ChatWebhookResponse", "Chat message deleted"),
        EventType(
            "conversation_created", "chat", "ChatWebhookResponse", "Chat conversation created"
        ),
        EventType(
            "conversation_updated", "chat", "ChatWebhookResponse", "Chat conversation updated"
        ),
        EventType(
            "conversation_deleted", "chat", "ChatWebhookResponse", "Chat conversation deleted"
        ),
    ]
}
"""Every documented event by its ``eventType``."""

KEY_FIELDS: dict[str, dict[str, str]] = {
    "time_activity": {
        "user_id": "userId",
        "time_clock_id": "timeClockId",
        "time_activity_id": "timeActivityId",
        "time_activity": "timeActivity",
    },
    "timesheet_period": {"user_id": "userId", "time_clock_id": "timeClockId", "period": "data"},
    "availability": {"scheduler_id": "schedulerId", "items": "availabilityStatuses"},
    "shift": {
        "scheduler_id": "schedulerId",
        "webhook_version": "webhookVersion",
        "shifts": "data.shifts",
        "ids": "data.ids",
    },
    "user": {"users": "data"},
    "task": {"tasks": "data"},
    "form": {"form_id": "data.formId", "form_submission_id": "data.formSubmissionId"},
    "chat": {"data": "data"},
}
"""Per family: key field name -> dotted path in the payload (top level unless it starts with
``data.``). Availability puts ``availabilityStatuses`` at the top level; user and task events carry
``data`` as an array (full users for created/updated, ids only for the others)."""


@dataclass(frozen=True)
class Envelope:
    """What the receiver reads from one payload.

    Attributes:
        event_key: ``requestId`` when present, else ``sha256:<hex>`` of the raw body.
        event_type: The ``eventType`` string, or ``None``.
        family: The catalogue family, or ``"unknown"``.
        is_known_type: Whether the event type is in the catalogue.
        event_timestamp: ``eventTimestamp`` (UTC epoch seconds), falling back to the deprecated
            ``evnetTimestamp``; ``None`` when neither is an integer.
        activity_type: ``activityType`` or ``None``.
        company: ``company`` or ``None``.
        webhook_version: ``webhookVersion`` (shift events) as text, or ``None``.
    """

    event_key: str
    event_type: str | None
    family: str
    is_known_type: bool
    event_timestamp: int | None
    activity_type: str | None
    company: str | None
    webhook_version: str | None

    @property
    def recognisable(self) -> bool:
        """An envelope needs an event type or an event time."""
        return self.event_type is not None or self.event_timestamp is not None


EPOCH_MIN, EPOCH_MAX = 946_684_800, 4_102_444_800
"""Event times outside 2000-01-01..2100-01-01 (UTC epoch seconds) are not plausible."""


def event_time(payload: dict[str, Any]) -> int | None:
    """``eventTimestamp``, falling back to the deprecated ``evnetTimestamp`` (UTC epoch seconds);
    ``None`` when neither is an integer within 2000..2100 (the raw value stays in the payload)."""
    for name in ("eventTimestamp", "evnetTimestamp"):
        value = payload.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if isinstance(value, float) and not value.is_integer():
            continue
        if EPOCH_MIN <= value < EPOCH_MAX:
            return int(value)
    return None


def body_hash(raw: bytes) -> str:
    """The event key of a payload without ``requestId``: ``sha256:<hex of the raw body>``."""
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def read_envelope(payload: dict[str, Any], raw: bytes) -> Envelope:
    """Classify one decoded payload (a JSON object) received as ``raw`` bytes."""
    event_type = payload.get("eventType")
    event_type = event_type if isinstance(event_type, str) and event_type else None
    known = CATALOGUE.get(event_type) if event_type else None
    request_id = payload.get("requestId")
    key = request_id if isinstance(request_id, str) and request_id else body_hash(raw)
    version = payload.get("webhookVersion")
    return Envelope(
        event_key=key,
        event_type=event_type,
        family=known.family if known else UNKNOWN_FAMILY,
        is_known_type=known is not None,
        event_timestamp=event_time(payload),
        activity_type=_text(payload.get("activityType")),
        company=_text(payload.get("company")),
        webhook_version=None if version is None else str(version),
    )


def key_fields(payload: dict[str, Any], family: str) -> dict[str, Any]:
    """The family's key fields of one payload (absent fields are left out)."""
    out: dict[str, Any] = {}
    for name, path in KEY_FIELDS.get(family, {}).items():
        node: Any = payload
        for part in path.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            out[name] = node
    return out


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
