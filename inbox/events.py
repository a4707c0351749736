"""The provider's webhook event catalogue: every documented ``eventType``, its family, and where
its key fields sit.

Sources: the ``webhooks`` section of ``sources/connecteam/spec/connecteam-openapi.json`` (41
events, named by payload schema), ``sources/connecteam/spec/service-interface.md`` (Events) and
the newer events listed in ``sources/connecteam/spec/provider-notes.md`` (user add/edit/delete
requests, admin declined add/edit/delete requests, and the ``timesheet_period`` family), which
carry only
``eventTimestamp``. The ``eventType`` strings of the user, task, form and chat events are the
provider's published names (developer.connecteam.com webhook guides); the spec leaves them open.

Every payload shares the envelope ``requestId, company, eventType, eventTimestamp,
evnetTimestamp (deprecated, may be absent), activityType``; the event fields follow at the top
level or under ``data``. Reading one payload's envelope (its family, key and event time) is
:mod:`inbox.envelope`.
"""

from __future__ import annotations

from dataclasses import dataclass

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
