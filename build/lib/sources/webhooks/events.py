"""The provider's webhook event catalogue: every documented ``eventType``, its family, and where
its key fields sit.

Sources: the ``webhooks`` section of ``tests/data/connecteam-openapi.json`` (41 events, named
by payload schema), ``tests/data/service-interface.md`` (Events) and the newer events listed
in ``tests/data/provider-notes.md`` (user add/edit/delete requests, admin declined
add/edit/delete requests, and the ``timesheet_period`` family), which carry only
``eventTimestamp``. The ``eventType`` strings of the user, task, form and chat events are the
provider's published names (developer.connecteam.com webhook guides); the spec leaves them open.

Every payload shares the envelope ``requestId, company, eventType, eventTimestamp,
evnetTimestamp (deprecated, may be absent), activityType``; the event fields follow at the top
level or under ``data``.
"""

from __future__ import annotations

import hashlib
import json
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

FEATURE_FAMILIES: dict[str, tuple[str, ...]] = {
    "users": ("user",),
    "forms": ("form",),
    "time_activity": ("time_activity", "timesheet_period"),
    "tasks": ("task",),
    "shift_scheduler": ("shift", "availability"),
    "chat": ("chat",),
}
"""The provider's webhook ``featureType`` (``/settings/v1/webhooks``) of each family: a
subscription of one feature type may ask for that feature's event types only. The spec names
``users``, ``forms``, ``time_activity`` and ``tasks``, and scopes webhooks by "shift scheduler"
and chat entities (``entityId``) without naming their feature types: ``shift_scheduler`` and
``chat`` are our reading."""

ENTITY_SCOPED: dict[str, str] = {"time_activity": "time clock", "shift_scheduler": "scheduler"}
"""Feature types whose webhooks the provider scopes to one entity (``entityId``: the time clock
or scheduler id as a string); the others are subscribed once for the account (no entity)."""


def feature_event_types(feature_type: str) -> list[str]:
    """Every catalogued ``eventType`` of ``feature_type`` (:data:`FEATURE_FAMILIES`), in catalogue
    order.

    Raises:
        KeyError: ``feature_type`` is not one of :data:`FEATURE_FAMILIES`.
    """
    families = FEATURE_FAMILIES[feature_type]
    return [e.event_type for e in CATALOGUE.values() if e.family in families]


KEY_FIELDS: dict[str, dict[str, str]] = {
    "time_activity": {
        "user_id": "userId",
        "time_clock_id": "timeClockId",
        "time_activity_id": "timeActivityId",
        "nested_time_activity_id": "timeActivity.id",
    },
    "timesheet_period": {
        "user_id": "userId",
        "time_clock_id": "timeClockId",
        "period_start": "data.periodStart",
        "period_end": "data.periodEnd",
        "date": "data.date",
    },
    "availability": {
        "scheduler_id": "schedulerId",
        "availability_status_ids": "availabilityStatuses[*].id",
        "user_ids": "availabilityStatuses[*].userId",
    },
    "shift": {
        "scheduler_id": "schedulerId",
        "webhook_version": "webhookVersion",
        "slot_ids": "data.shifts[*].id",
        "assigned_user_ids": "data.shifts[*].assignedUserIds",
        "deleted_ids": "data.ids",
    },
    "user": {"user_ids": "data[*].userId"},
    "task": {"task_ids": "data[*].id"},
    "form": {"form_id": "data.formId", "form_submission_id": "data.formSubmissionId"},
    "chat": {"conversation_id": "data.conversationId", "message_id": "data.messageId"},
}
"""Per family: the fields that say which thing an event is about (the activity, the timesheet
period, the availability statuses, the shift slots, the users, tasks, form submission or chat
message), as key field name -> dotted path in the payload. ``name[*]`` steps into every item of
the array ``name`` (a list of values comes out). Availability puts ``availabilityStatuses`` at the
top level; user and task events carry ``data`` as an array. Events of the ``unknown`` family have
none."""

MAX_KEY_CHARS = 180
"""Longest event key (the inbox column holds 200; a conflicting delivery's key adds 17)."""


@dataclass(frozen=True)
class Envelope:
    """What the receiver reads from one payload.

    Attributes:
        event_key: The event's key in the inbox and the warehouse (:func:`event_key`):
            ``<requestId>/<eventType>/<16 hex of the event's identity>``, or
            ``sha256:<hex of the raw body>`` without a ``requestId``.
        event_type: The ``eventType`` string (NUL characters replaced, at most 200 characters),
            or ``None``.
        family: The catalogue family, or ``"unknown"``.
        is_known_type: Whether the event type is in the catalogue.
        event_timestamp: ``eventTimestamp`` (UTC epoch seconds), falling back to the deprecated
            ``evnetTimestamp``; ``None`` when neither is a plausible time (:func:`event_time`).
        activity_type: ``activityType`` as text, or ``None``.
        company: ``company`` as text, or ``None``.
        webhook_version: ``webhookVersion`` (shift events) as text, or ``None``.
        request_id: ``requestId`` when it is a non-empty string (as text), else ``None``.
        is_event_time_implausible: An event time was sent (``eventTimestamp`` or
            ``evnetTimestamp`` not null) but none is a plausible time, so ``event_timestamp`` is
            ``None``; the raw value stays in the body.
        legacy_key: The key this event had before keys carried the event's identity (its
            ``requestId``), so a re-delivery of an event stored under that key is recognised;
            ``None`` when it equals ``event_key``.
    """

    event_key: str
    event_type: str | None
    family: str
    is_known_type: bool
    event_timestamp: int | None
    activity_type: str | None
    company: str | None
    webhook_version: str | None
    request_id: str | None = None
    is_event_time_implausible: bool = False
    legacy_key: str | None = None

    @property
    def recognisable(self) -> bool:
        """An envelope needs an event type or an event time (plausible or not)."""
        return (
            self.event_type is not None
            or self.event_timestamp is not None
            or self.is_event_time_implausible
        )


EPOCH_MIN, EPOCH_MAX = 946_684_800, 4_102_444_800
"""Event times outside 2000-01-01..2100-01-01 (UTC epoch seconds) are not plausible."""
TIME_FIELDS = ("eventTimestamp", "evnetTimestamp")
"""The envelope's event time and its deprecated misspelled duplicate, in order of preference."""


def plausible_time(value: Any) -> int | None:
    """``value`` as UTC epoch seconds when it is an integral number (``int``, or a ``float``
    without a fraction) within 2000..2100 (:data:`EPOCH_MIN`, :data:`EPOCH_MAX`), else ``None``
    (booleans, text, fractions, negative numbers, milliseconds, numbers beyond 64 bits)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    if EPOCH_MIN <= value < EPOCH_MAX:
        return int(value)
    return None


def event_time(payload: dict[str, Any]) -> int | None:
    """``eventTimestamp``, falling back to the deprecated ``evnetTimestamp`` (UTC epoch seconds);
    ``None`` when neither is a plausible time (:func:`plausible_time`; the raw value stays in
    the payload)."""
    for name in TIME_FIELDS:
        stamp = plausible_time(payload.get(name))
        if stamp is not None:
            return stamp
    return None


def body_hash(raw: bytes) -> str:
    """The event key of a payload without ``requestId``: ``sha256:<hex of the raw body>``."""
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def event_key(payload: dict[str, Any], raw: bytes, event_type: str | None, family: str) -> str:
    """The key an event is stored under: its own identity, not only the request it came in.

    With a ``requestId`` (a non-empty string): ``<requestId>/<eventType>/<digest>``, the digest
    being the first 16 hex digits of SHA-256 over ``requestId``, ``eventType`` and the family's
    :data:`KEY_FIELDS` (so two events of one request, e.g. V1 shift events, one per assignment,
    get two keys; key fields nested too deep to write out are replaced by the raw body). When
    ``requestId`` and ``eventType`` are too long for a readable key (:data:`MAX_KEY_CHARS`) or
    hold control characters: ``key-sha256:<hex of the same>``.
    Without a ``requestId``: :func:`body_hash` of ``raw``.
    """
    request_id = payload.get("requestId")
    if not (isinstance(request_id, str) and request_id):
        return body_hash(raw)
    try:
        identity = _canonical([request_id, event_type, key_fields(payload, family)])
    except (RecursionError, ValueError):  # key fields nested too deep to write: the whole body
        identity = _canonical([request_id, event_type]) + raw
    digest = hashlib.sha256(identity).hexdigest()
    readable = f"{request_id}/{event_type or ''}/{digest[:16]}"
    if len(readable) > MAX_KEY_CHARS or not readable.isprintable():
        return "key-sha256:" + digest
    return readable


def read_envelope(payload: dict[str, Any], raw: bytes) -> Envelope:
    """Classify one decoded payload (a JSON object) received as ``raw`` bytes.

    Text fields are made storable in any inbox database: NUL characters become U+FFFD and
    values are cut to their column's width (the raw body keeps them as sent).
    """
    sent_type = payload.get("eventType")
    sent_type = sent_type if isinstance(sent_type, str) and sent_type else None
    known = CATALOGUE.get(sent_type) if sent_type else None
    family = known.family if known else UNKNOWN_FAMILY
    request_id = payload.get("requestId")
    request_id = request_id if isinstance(request_id, str) and request_id else None
    key = event_key(payload, raw, sent_type, family)
    stamp = event_time(payload)
    sent_time = any(payload.get(name) is not None for name in TIME_FIELDS)
    return Envelope(
        event_key=key,
        event_type=_text(sent_type, 200),
        family=family,
        is_known_type=known is not None,
        event_timestamp=stamp,
        activity_type=_text(payload.get("activityType"), 200),
        company=_text(payload.get("company"), 200),
        webhook_version=_text(payload.get("webhookVersion"), 40),
        request_id=_text(request_id),
        is_event_time_implausible=stamp is None and sent_time,
        legacy_key=_legacy_key(request_id, key),
    )


def _legacy_key(request_id: str | None, key: str) -> str | None:
    """The key the event had before keys carried its identity (its ``requestId``), when that
    differs from ``key`` and could be stored (no NUL: PostgreSQL text cannot hold one)."""
    if request_id is None or request_id == key or "\x00" in request_id:
        return None
    return request_id


def key_fields(payload: dict[str, Any], family: str) -> dict[str, Any]:
    """The family's key fields of one payload (:data:`KEY_FIELDS`; absent fields are left out,
    a ``[*]`` path gives the list of its items' values)."""
    out: dict[str, Any] = {}
    for name, path in KEY_FIELDS.get(family, {}).items():
        node = _walk(payload, path.split("."))
        if node is not None and node != []:
            out[name] = node
    return out


def _walk(node: Any, parts: list[str]) -> Any:
    for i, part in enumerate(parts):
        each = part.endswith("[*]")
        name = part[:-3] if each else part
        node = node.get(name) if isinstance(node, dict) else None
        if each:
            items = node if isinstance(node, list) else []
            found = [_walk(item, parts[i + 1 :]) for item in items]
            return [value for value in found if value is not None]
    return node


def _canonical(value: Any) -> bytes:
    """``value`` as JSON with sorted keys (integers of any size, as the standard library
    writes them), the input of an event key's digest."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=repr).encode("utf-8", "surrogatepass")  # fmt: skip


def _text(value: Any, width: int | None = None) -> str | None:
    """``value`` as text a database column takes (objects and arrays as JSON): NUL characters
    replaced by U+FFFD, cut to ``width`` characters; ``None`` stays ``None``."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value
    elif isinstance(value, dict | list):  # as JSON; one nested too deep to write: its kind
        try:
            text = json.dumps(value, ensure_ascii=False, default=repr)
        except (RecursionError, ValueError):
            text = f"<{type(value).__name__}>"
    else:
        text = str(value)
    text = text.replace("\x00", "\ufffd")
    return text if width is None or len(text) <= width else text[: width - 1] + "\u2026"
