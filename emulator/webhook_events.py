"""Provider-like webhook event payloads, one per event type the provider's documents name
(:func:`emulator.spec_webhooks.catalogue`).

Payloads of the 41 events in the spec's ``webhooks`` section validate against their schemas
(tests check this). The newer events follow ``sources/connecteam/spec/provider-notes.md``: they
carry only ``eventTimestamp`` (no ``evnetTimestamp``). Where the provider's documents show no
payload, the emulator's choice is:

* timesheet-period events: ``userId``, ``timeClockId`` and ``data`` =
  ``{"periodStart": "YYYY-MM-DD", "periodEnd": "YYYY-MM-DD", "date": "YYYY-MM-DD"}`` (``date`` only
  for the day lock events), ``activityType`` ``"timesheet"``;
* user add/edit/delete requests and admin declined add/edit/delete: the time-activity shape;
* chat events: ``data`` = ``{"conversationId", "messageId"?, "userId", "text"?}``.

Shift events come in both versions: V1 (``webhookVersion: "v1"``) sends one event per assigned
user with the slot id ``<shiftId>:<uuid>``; V2 (``"v2"``) one event per shift with every
``assignedUserIds`` and the base shift id.
"""

from __future__ import annotations

import datetime as dt
import random
import time
import uuid
from collections.abc import Sequence
from typing import Any

from .operations_records import TIME_CLOCK_BASE
from .spec_webhooks import WebhookEvent, catalogue

COMPANY = "emulated-company"
TIMEZONES = ["America/New_York", "Europe/London", "Australia/Sydney"]
AUTO_CLOCK_OUT_MODES = ["dailyLimit", "hourLimit", "schedulerShiftEnded", "geofenceExit",
                        "disabledGps", "disabledGpsPermission"]  # fmt: skip
AVAILABILITY_TYPES = ["available", "preferToWork", "unavailable", "absence"]


def random_uuid(rng: random.Random) -> str:
    """A UUID4-shaped string drawn from ``rng``."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _oid(rng: random.Random) -> str:
    """A 24-hex-digit object id drawn from ``rng``."""
    return f"{rng.getrandbits(96):024x}"


def make_event(
    event_type: str,
    rng: random.Random,
    now: int | None = None,
    shift_version: str = "v1",
    user_ids: Sequence[int] | None = None,
) -> dict[str, Any]:
    """One provider-like payload of ``event_type``.

    Args:
        event_type: An ``eventType`` of :func:`emulator.spec_webhooks.catalogue`.
        rng: Source of randomness (seed it for repeatable payloads).
        now: Event time, UTC epoch seconds (default: now).
        shift_version: ``"v1"`` or ``"v2"`` for shift events.
        user_ids: Users the event may name (default 1000..1999, the emulator's first users).

    Raises:
        KeyError: ``event_type`` is not in the catalogue.
    """
    spec: WebhookEvent = catalogue()[event_type]
    stamp = int(now if now is not None else time.time()) - rng.randint(0, 5)
    payload: dict[str, Any] = {
        "requestId": random_uuid(rng),
        "company": COMPANY,
        "eventType": event_type,
        "eventTimestamp": stamp,
    }
    if spec.in_spec:  # events in the spec file still carry the misspelled duplicate
        payload["evnetTimestamp"] = stamp
    user_id = rng.choice(user_ids) if user_ids else rng.randint(1000, 1999)
    builder = _BUILDERS[spec.family]
    payload.update(builder(event_type, rng, stamp, user_id, shift_version))
    return payload


def _time_activity(
    event_type: str, rng: random.Random, stamp: int, user_id: int, _v: str
) -> dict[str, Any]:
    kind = (
        "time_off"
        if event_type in ("admin_declined_request",)
        else rng.choice(["shift", "shift", "shift", "manual_break"])
    )
    tz = rng.choice(TIMEZONES)
    start = stamp - rng.randint(1, 10) * 3600
    source = {"type": rng.choice(["mobile", "kiosk", "pc", "admin"])}
    activity: dict[str, Any] = {
        "id": _oid(rng),
        "start": {"timestamp": start, "timezone": tz, "source": source},
        "createdAt": start,
        "modifiedAt": stamp,
    }
    if event_type != "clock_in":
        end_source: dict[str, Any] = {"type": "mobile"}
        if event_type == "auto_clock_out":
            end_source = {"type": "autoClockOut", "mode": rng.choice(AUTO_CLOCK_OUT_MODES)}
            activity["isAutoClockOut"] = True
        activity["end"] = {"timestamp": stamp, "timezone": tz, "source": end_source}
    if kind == "shift":
        # no schedulerShiftId: a drawn punch is for no shift the API serves (the field is
        # optional: "the shift from the schedule, if it exists")
        activity["jobId"] = f"job-{rng.randint(1, 8):03d}"  # a job of the listing
    elif kind == "manual_break":
        activity["manualBreakId"] = _oid(rng)
    else:
        activity.update(
            policyTypeId=_oid(rng),
            duration={"value": 8, "units": "hours"},
            isAllDay=True,
        )
    return {
        "activityType": kind,
        "userId": user_id,
        "timeClockId": TIME_CLOCK_BASE + rng.randint(0, 1),  # the tidy account's two clocks
        "timeActivity": activity,
        "timeActivityId": activity["id"],
    }


def _timesheet_period(
    event_type: str, rng: random.Random, stamp: int, user_id: int, _v: str
) -> dict[str, Any]:
    day = dt.datetime.fromtimestamp(stamp, dt.UTC).date()
    start = day - dt.timedelta(days=day.weekday())
    data: dict[str, Any] = {
        "periodStart": start.isoformat(),
        "periodEnd": (start + dt.timedelta(days=6)).isoformat(),
    }
    if event_type.startswith("admin_day"):
        data["date"] = (day - dt.timedelta(days=1)).isoformat()
    return {
        "activityType": "timesheet",
        "userId": user_id,
        "timeClockId": TIME_CLOCK_BASE,  # the tidy account's first clock
        "data": data,
    }


def _availability(
    event_type: str, rng: random.Random, stamp: int, user_id: int, _v: str
) -> dict[str, Any]:
    tz = rng.choice(TIMEZONES)
    start = (stamp // 86_400 + rng.randint(1, 14)) * 86_400
    all_day = rng.random() < 0.5
    statuses = [
        {
            "id": _oid(rng),
            "type": rng.choice(AVAILABILITY_TYPES),
            "userId": user_id,
            "start": {"timestamp": start, "timezone": tz},
            "end": {"timestamp": start + (86_400 if all_day else 4 * 3600), "timezone": tz},
            "isAllDay": all_day,
            "note": rng.choice(["", "Dentist", "Uni exam", "Kinderbetreuung"]),
        }
        for _ in range(rng.randint(1, 2))
    ]
    return {
        "activityType": "availability",
        "schedulerId": 9000,
        "availabilityStatuses": statuses,
        "isAdminAction": rng.random() < 0.3,
    }


def _shift(
    event_type: str, rng: random.Random, stamp: int, user_id: int, version: str
) -> dict[str, Any]:
    base = _oid(rng)
    common = {"activityType": "shift", "schedulerId": rng.choice([9000, 9001]),
              "webhookVersion": version}  # fmt: skip
    if event_type == "shift_deleted":
        ids = [base] if version == "v2" else [f"{base}:{random_uuid(rng)}"]
        return {**common, "data": {"ids": ids}}
    start = (stamp // 3600 + rng.randint(2, 200)) * 3600
    tz = rng.choice(TIMEZONES)
    users = [user_id + i for i in range(rng.randint(1, 3))]
    shift: dict[str, Any] = {
        "color": "#4B7AC5",
        "startTime": start,
        "endTime": start + 8 * 3600,
        "timezone": tz,
        "isOpenShift": False,
        "title": rng.choice(["Opening", "Closing", "Night"]),
        "jobId": None,
        "locationData": None,
        "isPublished": True,
        "isRequireAdminApproval": False,
        "updateTime": stamp,
        "creationTime": stamp - 60,
        "createdBy": 1000,
        "openSpots": 0,
        "notes": [],
        "statuses": [],
        "breaks": [],
        "shiftDetails": {"shiftLayers": [], "shiftSource": None},
        "customFields": [],
        "allDay": False,
    }
    if version == "v2":
        shifts = [{**shift, "id": base, "assignedUserIds": users}]
    else:  # V1: one event per individual assignment
        shifts = [{**shift, "id": f"{base}:{random_uuid(rng)}", "assignedUserIds": [users[0]]}]
    return {**common, "data": {"shifts": shifts}}


def _user(event_type: str, rng: random.Random, stamp: int, user_id: int, _v: str) -> dict[str, Any]:
    if event_type in ("user_created", "user_updated"):
        data = [
            {
                "userId": user_id,
                "firstName": rng.choice(["José", "Zoë", "Łukasz", "Mei"]),
                "lastName": rng.choice(["García", "Müller", "Nowak"]),
                "phoneNumber": "+15550100",
                "email": f"user{user_id}@example.com",
                "userType": "user",
                "isArchived": False,
                "createdAt": stamp - 86_400,
                "modifiedAt": stamp,
                "archivedAt": None,
                "lastLogin": 0,
                "smartGroupsIds": [],
                "customFields": [
                    {
                        "customFieldId": 101,
                        "name": "Employee number",
                        "type": "number",
                        "value": user_id * 7,
                    }
                ],
            }
        ]
    else:
        data = [{"userId": user_id}]
    return {"activityType": "User", "data": data}


def _task(event_type: str, rng: random.Random, stamp: int, user_id: int, _v: str) -> dict[str, Any]:
    status = "completed" if event_type == "task_completed" else "published"
    return {
        "activityType": "Task",
        "data": [
            {
                "id": _oid(rng),
                "taskBoardId": 9454803,
                "title": rng.choice(["Safety inspection", "Restock fridge", "Kassensturz"]),
                "userIds": [user_id],
                "status": status,
                "type": "oneTime",
                "startTime": stamp - 600,
                "dueDate": stamp + 3600,
                "labelIds": [],
                "isArchived": False,
            }
        ],
    }


def _form(event_type: str, rng: random.Random, stamp: int, user_id: int, _v: str) -> dict[str, Any]:
    common = {
        "formSubmissionId": _oid(rng),
        "formId": rng.randint(500, 504),
        "submissionTimestamp": stamp,
        "submissionTimezone": rng.choice(TIMEZONES),
        "entryNum": rng.randint(1, 500),
    }
    if event_type == "manager_field_updated":
        data = {
            **common,
            "managerFields": [
                {"managerFieldId": _oid(rng), "managerFieldType": "note", "note": "Checked ✓"}
            ],
        }
    else:
        data = {
            **common,
            "submittingUserId": user_id,
            "isAnonymous": False,
            "submissionStartTimestamp": stamp - 120,
            "answers": [
                {
                    "questionId": random_uuid(rng),
                    "questionType": "openEnded",
                    "wasSubmittedEmpty": False,
                    "value": "Alles gut",
                },
                {
                    "questionId": random_uuid(rng),
                    "questionType": "number",
                    "wasSubmittedEmpty": False,
                    "inputValue": round(rng.uniform(-5, 8), 1),
                },
                {
                    "questionId": random_uuid(rng),
                    "questionType": "yesNo",
                    "wasSubmittedEmpty": False,
                    "selectedIndex": rng.randint(0, 1),
                },
            ],
        }
    return {"activityType": "form", "data": data}


def _chat(event_type: str, rng: random.Random, stamp: int, user_id: int, _v: str) -> dict[str, Any]:
    data: dict[str, Any] = {"conversationId": _oid(rng), "userId": user_id}
    if event_type.startswith("message"):
        data["messageId"] = _oid(rng)
        if event_type != "message_deleted":
            data["text"] = rng.choice(["On my way", "Schicht getauscht?", "👍"])
    return {"activityType": "chat", "data": data}


_BUILDERS = {
    "time_activity": _time_activity,
    "timesheet_period": _timesheet_period,
    "availability": _availability,
    "shift": _shift,
    "user": _user,
    "task": _task,
    "form": _form,
    "chat": _chat,
}
