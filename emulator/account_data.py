"""The emulator's own records of the account (``data="emulator"``): users with their custom
fields, user documents, forms, schedulers and V1 shift rows, each drawn from a seeded
``random.Random`` passed in (the caller's draw order makes the account repeatable).

Records follow the provider's OpenAPI schemas (``User``, ``FormResponse``,
``SchedulerResponse``, the V1 ``ShiftResponse``); times are UTC epoch seconds.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from .config import DAY, EmulatorConfig
from .domains.shift_layers.data import shift_custom_values, shift_details
from .vocabulary import (
    COLORS,
    CUSTOM_FIELDS,
    DEPARTMENTS,
    DOCUMENT_STATUSES,
    DOCUMENTS,
    FIRST_NAMES,
    LAST_NAMES,
    SCHEDULER_NAMES,
    SHIFT_TITLES,
    TIMEZONES,
    uuid_of,
)

FIRST_USER_ID, FIRST_FORM_ID, FIRST_SCHEDULER_ID = 1000, 500, 9000
FIRST_DOCUMENT_ID = 880_000


def user(rng: random.Random, user_id: int, anchor: int, archived_fraction: float) -> dict[str, Any]:
    """One ``User`` created 30..900 days before ``anchor`` (epoch seconds), archived with
    probability ``archived_fraction`` (then ``archivedAt`` = its ``modifiedAt``)."""
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    created = anchor - rng.randint(30, 900) * DAY + rng.randint(0, DAY - 1)
    modified = min(anchor - rng.randint(1, 20 * DAY), created + rng.randint(0, 200 * DAY))
    archived = rng.random() < archived_fraction
    record: dict[str, Any] = {
        "userId": user_id,
        "firstName": first,
        "lastName": last,
        "phoneNumber": f"+1{rng.randint(2000000000, 9899999999)}",
        "userType": "manager" if rng.random() < 0.05 else "user",
        "email": f"user{user_id}@example.com",
        "customFields": custom_fields(rng, user_id, created),
        "isArchived": archived,
        "kioskCode": f"{rng.randint(0, 9999):04d}",
        "createdAt": created,
        "modifiedAt": modified,
        "lastLogin": modified - rng.randint(0, 5) * DAY if rng.random() < 0.8 else 0,
        "smartGroupsIds": sorted(rng.sample(range(1, 12), rng.randint(0, 3))),
    }
    if archived:
        record["archivedAt"] = modified
    return record


def custom_fields(rng: random.Random, user_id: int, created: int) -> list[dict[str, Any]]:
    """A user's custom field values (:data:`~emulator.vocabulary.CUSTOM_FIELDS`): employee
    number, department and start date always, the others with probability 0.6 each; dates
    ``YYYY-MM-DD`` from ``created`` (epoch seconds)."""
    start = datetime.fromtimestamp(created, ZoneInfo("UTC")).date()
    born = start - timedelta(days=rng.randint(18 * 365, 60 * 365))
    dept_id, dept = rng.choice(DEPARTMENTS)
    values: dict[int, Any] = {
        101: user_id * 7 % 100000,
        102: [{"id": dept_id, "value": dept}],
        103: start.isoformat(),
        104: born.isoformat(),
        105: f"personal{user_id}@example.org",
        106: f"+44{rng.randint(7000000000, 7999999999)}",
        107: rng.choice(["", "Prefers mornings", "Forklift licence ✓", "Speaks 日本語"]),
        108: f"https://intranet.example.com/people/{user_id}",
    }
    return [
        {"customFieldId": cid, "name": name, "type": kind, "value": values[cid]}
        for cid, name, kind in CUSTOM_FIELDS
        if cid in (101, 102, 103) or rng.random() < 0.6
    ]


def user_documents(
    rng: random.Random, user_ids: list[int], anchor: int, fraction: float
) -> dict[int, dict[str, Any]]:
    """User documents (``GET /documents/v1/user-documents``) by id from
    :data:`FIRST_DOCUMENT_ID`: one or two for each user of ``user_ids`` chosen with probability
    ``fraction``, created within 300 days before ``anchor`` (epoch seconds)."""
    documents: dict[int, dict[str, Any]] = {}
    next_id = FIRST_DOCUMENT_ID
    for user_id in user_ids:
        if rng.random() >= fraction:
            continue
        for document_id, name, kind, pack in rng.sample(DOCUMENTS, rng.randint(1, 2)):
            created = anchor - rng.randint(1, 300) * DAY
            documents[next_id] = {
                "id": next_id,
                "userId": user_id,
                "documentId": document_id,
                "documentName": name,
                "documentType": kind,
                "packId": pack,
                "status": rng.choice(DOCUMENT_STATUSES),
                "createdAt": created,
                "updatedAt": created + rng.randint(0, 20) * DAY,
            }
            next_id += 1
    return documents


def form(rng: random.Random, form_id: int, anchor: int) -> dict[str, Any]:
    """One ``FormResponse`` with 2..5 questions, created 10..400 days before ``anchor``."""
    created = anchor - rng.randint(10, 400) * DAY
    base = {"description": "", "locationRequired": False, "submissionRequired": True}
    questions: list[dict[str, Any]] = [
        {**base, "questionId": uuid_of(rng), "title": "Site", "questionType": "openEnded"},
        {**base, "questionId": uuid_of(rng), "title": "Temperature °C",
         "questionType": "number"},
        {**base, "questionId": uuid_of(rng), "title": "When", "questionType": "datetime",
         "isDateActive": True, "isTimeActive": True},
        {**base, "questionId": uuid_of(rng), "title": "All clear?", "questionType": "yesNo",
         "allAnswers": [{"yesNoOptionId": 1, "text": "Yes"},
                        {"yesNoOptionId": 2, "text": "No"}]},
        {**base, "questionId": uuid_of(rng), "title": "Shift type",
         "questionType": "multipleChoice", "isMultipleSelect": False,
         "displaySortedAnswers": False,
         "allAnswers": [{"multipleChoiceOptionId": uuid_of(rng), "text": t}
                        for t in ("Opening", "Closing", "Café")]},
    ]  # fmt: skip
    return {
        "formId": form_id,
        "formName": rng.choice(["Daily checklist", "Incident report", "Fridge log", "Übergabe"])
        + f" #{form_id}",
        "createdAt": created,
        "lastUpdatedAt": created + rng.randint(0, 9) * DAY,
        "questions": questions[: rng.randint(2, len(questions))],
        "settings": {
            "enableUsersToDownloadPdf": rng.random() < 0.5,
            "limitTotalEntries": {"enabled": False, "limitTotalEntries": 0},
            "limitEntriesPerUser": {"enabled": False, "limitEntriesPerUser": 0},
            "limitEntriesUntilTimestamp": {"enabled": False, "limitEntriesUntilTimestamp": 0},
            "isAnonymous": False,
            "managerFields": [],
        },
    }


def scheduler(index: int) -> dict[str, Any]:
    """The ``index``-th ``SchedulerResponse`` (id ``9000 + index``; every 7th but the first
    archived)."""
    return {
        "schedulerId": FIRST_SCHEDULER_ID + index,
        "name": SCHEDULER_NAMES[index % len(SCHEDULER_NAMES)]
        + ("" if index < len(SCHEDULER_NAMES) else f" {index}"),
        "isArchived": index > 0 and index % 7 == 0,
        "timezone": TIMEZONES[index % len(TIMEZONES)],
    }


def spread_shifts(
    rng: random.Random,
    config: EmulatorConfig,
    schedulers: dict[int, dict[str, Any]],
    shifts: dict[int, list[dict[str, Any]]],
    users: list[int],
    anchor: int,
) -> int:
    """Add ``config.shifts`` V1 rows to ``shifts`` (by scheduler id, each scheduler's list
    present), spread over ``schedulers``: 80% single-user shifts, the rest for 2..4 users, one in
    twenty open; assigned among ``users`` (the active ones), never one user to two shifts closer
    than :data:`REST_HOURS` (:class:`Rota`). Returns the last creation time (epoch seconds;
    ``anchor - shift_days_back - 40`` days when none was made)."""
    created = anchor - (config.shift_days_back + 40) * DAY
    if not schedulers or config.shifts <= 0:
        return created
    scheduler_ids = list(schedulers)
    remaining = config.shifts
    rota = Rota(users)
    while remaining > 0:
        sid = scheduler_ids[rng.randrange(len(scheduler_ids))]
        roll = rng.random()
        spots = 1 if roll < 0.8 else min(remaining, rng.randint(2, 4))
        created += rng.randint(1, 60)
        timezone = schedulers[sid]["timezone"]
        rows = shift_rows(rng, config, timezone, anchor, created, spots, roll > 0.95, rota)
        shifts[sid].extend(rows)
        remaining -= len(rows)
    return created


REST_HOURS = 8
"""Hours a user rests between two of their shifts in the tidy account: no overlapping shifts,
and no more than one shift's hours (10 at most) starting on one day."""


class Rota:
    """Who works when: each user's shifts so far, to give a shift only to a user free from
    :data:`REST_HOURS` before its start to as long after its end, with no other shift starting
    on the same local day (each shift's day in its own timezone: schedulers differ)."""

    def __init__(self, users: list[int]) -> None:
        self.users = users
        self._busy: dict[int, list[tuple[int, int, date]]] = {}

    def free(self, user: int, start: int, end: int, day: date) -> bool:
        """Whether ``user`` has no shift within the rest hours of ``start..end`` (epoch s) and
        none starting on the local ``day``."""
        rest = REST_HOURS * 3600
        return all(
            (e + rest <= start or end + rest <= s) and d != day
            for s, e, d in self._busy.get(user, ())
        )

    def assign(self, drawn: list[int], start: int, end: int, day: date) -> list[int]:
        """``drawn`` (distinct users drawn for one shift starting on the local ``day``), each
        busy one replaced by the next free user after it in the account's order (no random
        draw, so the rest of the account stays as drawn); a user kept when nobody is free.
        Records the shift for each."""
        chosen: list[int] = []
        for user in drawn:
            pick = user
            if not self.free(user, start, end, day):
                at = self.users.index(user)
                ring = self.users[at + 1 :] + self.users[:at]
                pick = next(
                    (u for u in ring if u not in chosen and u not in drawn
                     and self.free(u, start, end, day)),
                    user,
                )  # fmt: skip
            chosen.append(pick)
            self._busy.setdefault(pick, []).append((start, end, day))
        return chosen


def shift_rows(
    rng: random.Random,
    config: EmulatorConfig,
    timezone: str,
    anchor: int,
    created: int,
    spots: int,
    open_shift: bool,
    users: list[int] | Rota,
) -> list[dict[str, Any]]:
    """The V1 rows of one shift in ``timezone``, on a day within ``config.shift_days_back``
    before to ``config.shift_days_ahead`` after ``anchor``: one open row with ``spots`` open
    spots, or one row per assigned user (slot id ``<base id>:<uuid>``) among ``users`` (a
    :class:`Rota` gives each shift to users free then)."""
    rota = users if isinstance(users, Rota) else None
    pool = users.users if isinstance(users, Rota) else users
    day = rng.randint(-config.shift_days_back, config.shift_days_ahead)
    local_day = datetime.fromtimestamp(anchor + day * DAY, ZoneInfo(timezone)).date()
    hour = rng.choice([6, 9, 12, 14, 18, 22])  # 22:00 shifts run past local midnight
    start_local = datetime(
        local_day.year, local_day.month, local_day.day, hour, tzinfo=ZoneInfo(timezone)
    )
    start = int(start_local.timestamp())
    end = start + rng.choice([4, 6, 8, 8, 10]) * 3600
    base_id = f"{rng.getrandbits(96):024x}"
    common = _shift_fields(rng, timezone, start, end, created, pool[0])
    common["shiftDetails"] = shift_details(base_id, common["title"])
    common["customFields"] = shift_custom_values(base_id)
    if open_shift:
        return [{"id": base_id, "assignedUserIds": [], "isOpenShift": True,
                 "openSpots": spots, **common}]  # fmt: skip
    assignees = rng.sample(pool, min(spots, len(pool)))
    if rota is not None:
        assignees = rota.assign(assignees, start, end, local_day)
    return [
        {"id": f"{base_id}:{uuid_of(rng)}", "assignedUserIds": [uid], "isOpenShift": False,
         "openSpots": 0, **common}
        for uid in assignees
    ]  # fmt: skip


def _shift_fields(
    rng: random.Random, timezone: str, start: int, end: int, created: int, creator: int
) -> dict[str, Any]:
    """The fields every row of one shift shares (all but id, assignees and open spots)."""
    return {
        "color": rng.choice(COLORS),
        "startTime": start,
        "endTime": end,
        "timezone": timezone,
        "title": rng.choice(SHIFT_TITLES),
        # one of the account's first eight jobs (operations_data: job-001 ... job-008), so the
        # shifts name jobs its /jobs listing holds
        "jobId": f"job-{rng.randint(1, 8):03d}",
        "isPublished": rng.random() < 0.9,
        "isRequireAdminApproval": False,
        "creationTime": created,
        "updateTime": created,
        "createdBy": creator,
        "notes": [{"type": "html", "html": "<p>Bring ID</p>"}] if rng.random() < 0.2 else [],
        "statuses": [],
        "breaks": [{"id": uuid_of(rng), "name": "Lunch", "type": "unpaid", "duration": 30}]
        if end - start >= 6 * 3600
        else [],
        "shiftDetails": {"shiftLayers": [], "shiftSource": None},  # set by shift_rows
        "customFields": [],
        "locationData": {
            "isReferencedToJob": False,
            "gps": {"address": "Hauptstraße 1, Köln", "latitude": 50.94, "longitude": 6.96},
        },
    }
