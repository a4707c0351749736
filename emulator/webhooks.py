"""The emulator's webhook sender: provider-like event payloads, POSTed like the provider does.

Payloads of the 41 events in the spec's ``webhooks`` section validate against their schemas
(tests check this). The newer events follow ``shared/reference/README.md``: they carry only
``eventTimestamp`` (no ``evnetTimestamp``). Where the provider's documents show no payload, the
emulator's choice is:

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

import asyncio
import logging
import random
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from sources.progress import Progress
from sources.webhooks.events import CATALOGUE, EventType, read_envelope

logger = logging.getLogger("emulator.webhooks")

COMPANY = "emulated-company"
TIMEZONES = ["America/New_York", "Europe/London", "Australia/Sydney"]
AUTO_CLOCK_OUT_MODES = ["dailyLimit", "hourLimit", "schedulerShiftEnded", "geofenceExit",
                        "disabledGps", "disabledGpsPermission"]  # fmt: skip
AVAILABILITY_TYPES = ["available", "preferToWork", "unavailable", "absence"]


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _oid(rng: random.Random) -> str:
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
        event_type: A catalogued ``eventType``.
        rng: Source of randomness (seed it for repeatable payloads).
        now: Event time, UTC epoch seconds (default: now).
        shift_version: ``"v1"`` or ``"v2"`` for shift events.
        user_ids: Users the event may name (default 1000..1999, the emulator's first users).

    Raises:
        KeyError: ``event_type`` is not in the catalogue.
    """
    spec: EventType = CATALOGUE[event_type]
    stamp = int(now if now is not None else time.time()) - rng.randint(0, 5)
    payload: dict[str, Any] = {
        "requestId": _uuid(rng),
        "company": COMPANY,
        "eventType": event_type,
        "eventTimestamp": stamp,
    }
    if spec.schema is not None:  # events in the spec file still carry the misspelled duplicate
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
        activity["jobId"] = f"job-{rng.randint(1, 8)}"
        activity["schedulerShiftId"] = _oid(rng)
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
        "timeClockId": rng.randint(7000, 7003),
        "timeActivity": activity,
        "timeActivityId": activity["id"],
    }


def _timesheet_period(
    event_type: str, rng: random.Random, stamp: int, user_id: int, _v: str
) -> dict[str, Any]:
    import datetime as dt

    day = dt.datetime.fromtimestamp(stamp, dt.UTC).date()
    start = day - dt.timedelta(days=day.weekday())
    data: dict[str, Any] = {
        "periodStart": start.isoformat(),
        "periodEnd": (start + dt.timedelta(days=6)).isoformat(),
    }
    if event_type.startswith("admin_day"):
        data["date"] = (day - dt.timedelta(days=1)).isoformat()
    return {"activityType": "timesheet", "userId": user_id, "timeClockId": 7000, "data": data}


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
        ids = [base] if version == "v2" else [f"{base}:{_uuid(rng)}"]
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
        shifts = [{**shift, "id": f"{base}:{_uuid(rng)}", "assignedUserIds": [users[0]]}]
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
                    "questionId": _uuid(rng),
                    "questionType": "openEnded",
                    "wasSubmittedEmpty": False,
                    "value": "Alles gut",
                },
                {
                    "questionId": _uuid(rng),
                    "questionType": "number",
                    "wasSubmittedEmpty": False,
                    "inputValue": round(rng.uniform(-5, 8), 1),
                },
                {
                    "questionId": _uuid(rng),
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

MALFORMED_BODIES = [
    b"this is not json",
    b'{"eventType": "clock_in", "eventTimestamp": 1700000000',  # cut short
    b"[1, 2, 3]",
    b'"a string"',
    b'{"hello": "no envelope here"}',
]


@dataclass
class SendReport:
    """What one burst did.

    Attributes:
        sent: POSTs made (duplicates and malformed included).
        statuses: Final answers by HTTP status (0 = no answer: the connection failed or timed
            out on the last attempt).
        errors: The transport errors behind the 0s, by exception class (``ReadTimeout``, ...).
        retried: Attempts repeated after a transport error (``send_burst(retries=...)``).
        acknowledged_keys: Event keys (as the receiver keys them: :func:`event_key`) of the
            bodies answered 200.
        malformed_sent: Malformed bodies sent.
        duplicates_sent: Repeated bodies sent.
        families: Distinct events sent per family.
        seconds: Wall time of the burst.
    """

    sent: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    retried: int = 0
    acknowledged_keys: set[str] = field(default_factory=set)
    malformed_sent: int = 0
    duplicates_sent: int = 0
    families: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


def build_burst(
    events: int,
    *,
    seed: int = 1,
    families: Iterable[str] | None = None,
    duplicate_rate: float = 0.0,
    malformed_rate: float = 0.0,
    now: int | None = None,
    user_ids: Sequence[int] | None = None,
    data: str = "emulator",
) -> list[tuple[bytes, str | None, str | None]]:
    """Bodies to send: ``(body, event_key or None for malformed, family)``, in sending order;
    ``event_key`` is the key the receiver stores the event under (:func:`event_key`).

    ``events`` distinct events cycle through every catalogued type of the chosen families (V1 and
    V2 shift events alternate); each is repeated with probability ``duplicate_rate`` and a
    malformed body is slipped in with probability ``malformed_rate``.

    ``data="spec"``: the distinct events are drawn from the spec's 41 webhook payload schemas
    instead, wilder than the spec (:func:`emulator.spec_data.spec_webhooks`; ``now`` places their
    dates, ``families`` and ``user_ids`` do not apply); duplicates and malformed bodies as above.
    """
    rng = random.Random(seed)
    if data == "spec":
        from .spec_data import spec_webhook_bodies

        drawn: list[tuple[bytes, str | None, str | None]] = [
            (body, event_key(body), family)
            for body, _, family in spec_webhook_bodies(events, seed, now)
        ]
        return _with_repeats(drawn, rng, duplicate_rate, malformed_rate)
    if data != "emulator":
        raise ValueError(f"data={data!r}: choose 'emulator' or 'spec'")
    wanted = set(families) if families else None
    types = [t for t in CATALOGUE.values() if wanted is None or t.family in wanted]
    if not types:
        raise ValueError(f"no catalogued events in families {sorted(wanted or [])}")
    out: list[tuple[bytes, str | None, str | None]] = []
    for i in range(events):
        spec = types[i % len(types)]
        version = "v2" if (i // len(types)) % 2 else "v1"
        payload = make_event(spec.event_type, rng, now, version, user_ids)
        body = orjson.dumps(payload)
        key = event_key(body)
        out.append((body, key, spec.family))
        if rng.random() < duplicate_rate:
            out.append((body, key, None))
        if rng.random() < malformed_rate:
            out.append((rng.choice(MALFORMED_BODIES), None, None))
    return out


def event_key(body: bytes) -> str:
    """The key the receiver stores a JSON-object ``body`` under
    (:func:`sources.webhooks.events.event_key`)."""
    return read_envelope(orjson.loads(body), body).event_key


def _with_repeats(
    bodies: list[tuple[bytes, str | None, str | None]],
    rng: random.Random,
    duplicate_rate: float,
    malformed_rate: float,
) -> list[tuple[bytes, str | None, str | None]]:
    """``bodies`` with each repeated (key kept, family ``None``) with probability
    ``duplicate_rate`` and a malformed body slipped in with probability ``malformed_rate``."""
    out: list[tuple[bytes, str | None, str | None]] = []
    for body, key, family in bodies:
        out.append((body, key, family))
        if rng.random() < duplicate_rate:
            out.append((body, key, None))
        if rng.random() < malformed_rate:
            out.append((rng.choice(MALFORMED_BODIES), None, None))
    return out


def activity_events(
    operations: Any, since: int, *, missed_every: int = 20, extra: int = 2, seed: int = 3
) -> list[tuple[bytes, str | None, str | None]]:
    """Webhook bodies for the emulator's own time activities that started at ``since`` (epoch
    seconds) or later, as the provider would have pushed them, with deliveries lost on purpose.

    Every ``missed_every``-th activity gets no event (a delivery the provider gave up on), and
    ``extra`` events describe activities the API does not hold (deleted since). Shifts and
    manual breaks come as ``clock_out``, time off as ``admin_add``; the payload's
    ``timeActivity`` is the API's record, so both sides agree where both have an activity.

    Returns:
        ``(body, event_key, family)`` tuples, as :func:`build_burst`.
    """
    rng = random.Random(seed)
    kinds = {"shifts": "shift", "manualBreaks": "manual_break", "timeOffs": "time_off"}
    out: list[tuple[bytes, str | None, str | None]] = []
    recent = [
        (clock_id, item)
        for clock_id, items in sorted(operations.activities.items())
        for item in items
        if item["record"]["start"]["timestamp"] >= since
    ]
    for n, (clock_id, item) in enumerate(recent):
        if missed_every and n % missed_every == missed_every - 1:
            continue
        out.append(_activity_event(rng, clock_id, item["userId"], kinds[item["kind"]],
                                   item["record"]))  # fmt: skip
    for k in range(extra if recent else 0):
        clock_id, item = recent[k % len(recent)]
        ghost = dict(item["record"], id=f"deleted-{k + 1:04d}")
        out.append(_activity_event(rng, clock_id, item["userId"], kinds[item["kind"]], ghost))
    return out


def _activity_event(
    rng: random.Random, clock_id: int, user_id: int, kind: str, record: dict[str, Any]
) -> tuple[bytes, str | None, str | None]:
    stamp = int(record.get("modifiedAt") or record["start"]["timestamp"])
    payload = {
        "requestId": _uuid(rng),
        "company": COMPANY,
        "eventType": "admin_add" if kind == "time_off" else "clock_out",
        "eventTimestamp": stamp,
        "evnetTimestamp": stamp,
        "activityType": kind,
        "userId": user_id,
        "timeClockId": clock_id,
        "timeActivity": record,
        "timeActivityId": record["id"],
    }
    body = orjson.dumps(payload)
    return body, event_key(body), "time_activity"


async def send_burst(
    url: str,
    bodies: Sequence[tuple[bytes, str | None, str | None]],
    *,
    token: str | None = None,
    signing_secret: str | None = None,
    concurrency: int = 16,
    timeout: float = 30.0,
    retries: int = 0,
    retry_delay: float = 1.0,
) -> SendReport:
    """POST ``bodies`` to ``url`` with ``concurrency`` requests in flight.

    A request that gets no answer (connection refused or dropped, timeout) is sent again up to
    ``retries`` times, ``retry_delay`` seconds apart, as the provider re-delivers an event that got
    no answer; an HTTP answer of any status is final.

    Args:
        url: The receiver's endpoint, e.g. ``http://127.0.0.1:8000/webhooks/connecteam``.
        bodies: From :func:`build_burst`.
        token: Sent as ``X-Webhook-Token``.
        signing_secret: When set, each request carries Standard Webhooks signature headers.
        concurrency: Requests in flight at once.
        timeout: Seconds per request (the provider waits 30).
        retries: Further attempts after a transport error (0: none).
        retry_delay: Seconds between attempts.
    """
    from sources.webhooks.receiver import sign

    report = SendReport()
    seen: set[bytes] = set()
    queue: asyncio.Queue[tuple[bytes, str | None, str | None]] = asyncio.Queue()
    for item in bodies:
        queue.put_nowait(item)
        if item[1] is None:
            report.malformed_sent += 1
        elif item[0] in seen:
            report.duplicates_sent += 1
        else:
            seen.add(item[0])
            if item[2]:
                report.families[item[2]] += 1
    headers = {"content-type": "application/json"}
    if token:
        headers["x-webhook-token"] = token
    started = time.monotonic()
    progress = Progress("webhooks sent", unit="requests", pages_unit="requests", logger=logger)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=timeout, limits=limits) as client:

        async def worker() -> None:
            while True:
                try:
                    body, key, _family = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                extra = dict(headers)
                if signing_secret:
                    extra.update(sign(signing_secret, str(uuid.uuid4()), int(time.time()), body))
                for attempt in range(retries + 1):
                    try:
                        response = await client.post(url, content=body, headers=extra)
                        status = response.status_code
                        break
                    except httpx.HTTPError as exc:
                        status, error = 0, type(exc).__name__
                        if attempt < retries:
                            report.retried += 1
                            await asyncio.sleep(retry_delay)
                if status == 0:
                    report.errors[error] += 1
                report.sent += 1
                report.statuses[status] += 1
                progress.page(1)
                if status == 200 and key is not None:
                    report.acknowledged_keys.add(key)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    report.seconds = time.monotonic() - started
    progress.done()
    return report
