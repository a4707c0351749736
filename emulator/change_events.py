"""The webhook events of a change made with ``POST /_emulator/mutate``, handed to the deliverer
(:mod:`emulator.delivery`) for every subscription that asks for them.

* users edited: ``user_updated`` with the full user object (feature ``users``);
* shift slots created, edited, moved, reassigned, deleted, users added or taken off (feature
  ``shift_scheduler``, entity: the scheduler): in webhook version 1 one event per slot
  (``shift_created`` / ``shift_updated`` / ``shift_deleted`` naming the slot id); in version 2
  one event per shift with every ``assignedUserIds`` and the base shift id, where adding or
  taking off a user is a ``shift_updated`` and ``shift_deleted`` fires only when the whole shift
  is gone (``sources/connecteam/spec/service-interface.md``, "Shift event versions");
* form submissions edited: ``form_submission_edited`` with the submission (feature ``forms``).

Every event of one change carries the change's time as ``eventTimestamp``.
"""

from __future__ import annotations

import uuid
from typing import Any

from .data import Dataset
from .delivery import Deliverer
from .webhook_events import COMPANY

SHIFT_FIELDS = ("color", "assignedUserIds", "startTime", "endTime", "timezone", "isOpenShift",
                "title", "jobId", "locationData", "isPublished", "isRequireAdminApproval",
                "updateTime", "creationTime", "createdBy", "openSpots", "notes", "statuses",
                "breaks", "shiftDetails", "customFields", "allDay")  # fmt: skip
"""The fields of a ``WebhookShiftResponse``."""


def _envelope(event_type: str, at: int, activity: str, **fields: Any) -> dict[str, Any]:
    envelope = {"requestId": str(uuid.uuid4()), "company": COMPANY, "eventType": event_type}
    return {**envelope, "eventTimestamp": at, "evnetTimestamp": at, "activityType": activity,
            **fields}  # fmt: skip


def _shift_item(row: dict[str, Any], **override: Any) -> dict[str, Any]:
    item = {k: row[k] for k in SHIFT_FIELDS if k in row}
    item.setdefault("allDay", False)
    return {"id": row.get("id"), **item, **override}


class _Event:
    """One event: its payload is built on first use, so every subscriber of its version gets
    the same ``requestId``; ``version`` ``None`` fits every subscription."""

    def __init__(
        self, event_type: str, at: int, activity: str, version: int | None, **fields: Any
    ) -> None:
        self.event_type, self.version = event_type, version
        self._args = (event_type, at, activity)
        self._fields = fields
        self._payload: dict[str, Any] | None = None

    def payload(self, version: int) -> dict[str, Any] | None:
        if self.version is not None and version != self.version:
            return None
        if self._payload is None:
            self._payload = _envelope(*self._args, **self._fields)
        return self._payload


def publish_changes(dataset: Dataset, deliverer: Deliverer, touched: dict[str, Any]) -> int:
    """Queue the events of one :meth:`~emulator.data.Dataset.mutate` (its answer ``touched``);
    returns the deliveries queued. The caller holds the dataset's lock."""
    at = int(touched.get("at") or 0)
    queued = 0
    for uid in touched.get("users", []):
        user = dict(dataset.users.get(uid) or {"userId": uid})
        event = _Event("user_updated", at, "User", None, data=[user])
        queued += deliverer.publish("user_updated", "user", None, event.payload)
    for scheduler_id, event in _shift_events(dataset, touched, at):
        queued += deliverer.publish(event.event_type, "shift", str(scheduler_id), event.payload)
    for form_id, submission_id in touched.get("edited_submissions", []):
        found = [
            s
            for s in dataset.operations.form_submissions.get(form_id, [])
            if s.get("formSubmissionId") == submission_id
        ]
        if found:
            event = _Event("form_submission_edited", at, "form", None, data=dict(found[0]))
            queued += deliverer.publish("form_submission_edited", "form", None, event.payload)
    return queued


def _shift_events(dataset: Dataset, touched: dict[str, Any], at: int) -> list[tuple[int, _Event]]:
    """The shift events of a change: version 1 per slot, version 2 per shift."""
    created = {(int(p[0]), str(p[1])) for k in ("new_shifts", "added_shift_users")
               for p in touched.get(k, [])}  # fmt: skip
    updated = {(int(p[0]), str(p[1])) for k in ("shifts", "moved_shifts", "reassigned_shifts")
               for p in touched.get(k, [])}  # fmt: skip
    deleted = {(int(p[0]), str(p[1])) for k in ("deleted_shifts", "unassigned_shift_users")
               for p in touched.get(k, [])}  # fmt: skip
    slots = {(sid, str(row.get("id"))): row for sid, rows in dataset.shifts.items() for row in rows}
    bases: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for (sid, slot_id), row in slots.items():
        bases.setdefault((sid, slot_id.split(":")[0]), []).append(row)
    out: list[tuple[int, _Event]] = []
    data: dict[str, Any]
    for sid, slot_id in sorted(created | updated | deleted):
        slot = slots.get((sid, slot_id))
        if (sid, slot_id) in deleted or slot is None:
            kind, data = "shift_deleted", {"ids": [slot_id]}
        else:
            kind = "shift_created" if (sid, slot_id) in created else "shift_updated"
            data = {"shifts": [_shift_item(slot)]}
        out.append((sid, _Event(kind, at, "shift", 1, schedulerId=sid, webhookVersion="v1",
                                data=data)))  # fmt: skip
    for sid, base in sorted(
        {(sid, slot.split(":")[0]) for sid, slot in created | updated | deleted}
    ):
        rows = bases.get((sid, base), [])
        if not rows:
            kind, data = "shift_deleted", {"ids": [base]}
        else:
            fresh = all((sid, str(r.get("id"))) in created for r in rows)
            kind = "shift_created" if fresh else "shift_updated"
            users = sorted({u for r in rows for u in r.get("assignedUserIds") or []})
            data = {"shifts": [_shift_item(rows[0], id=base, assignedUserIds=users)]}
        out.append((sid, _Event(kind, at, "shift", 2, schedulerId=sid, webhookVersion="v2",
                                data=data)))  # fmt: skip
    return out
