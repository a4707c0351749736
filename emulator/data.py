"""Seeded, realistic account data for the emulator, and the changes made to it between runs.

All records follow the provider's OpenAPI schemas (``User``, ``FormResponse``, ``SchedulerResponse``
and the V1 ``ShiftResponse``). Timestamps are UTC epoch seconds. Generation is deterministic for a
given ``seed`` and ``anchor`` (the emulator's notion of "now" at start-up, floored to the day).
The operations records come from :mod:`emulator.operations_data`; with ``data="spec"`` every
record is drawn from the spec's schemas instead (:mod:`emulator.spec_account`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from .attendance import tie_punches_to_shifts
from .config import DAY, EmulatorConfig
from .config import now as clock_now
from .operations_data import REMOVABLE_OPERATIONS, Operations
from .pay_leave_data import tidy_pay_leave
from .spec_account import spec_account
from .spec_data import SpecData
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

__all__ = ["REMOVABLE", "Dataset", "EmulatorConfig"]

REMOVABLE = ("forms", "schedulers", "user_documents", *REMOVABLE_OPERATIONS)
"""Streams :meth:`Dataset.mutate` can remove records from (``remove``)."""


@dataclass
class Dataset:
    """The emulated account's records, mutable between runs.

    Attributes:
        users: By ``userId``, in id order.
        forms: By ``formId``.
        schedulers: By ``schedulerId``.
        shifts: By ``schedulerId``: V1 shift rows in creation order.
        version: Increases with every change (cache key of filtered listings).
    """

    config: EmulatorConfig
    users: dict[int, dict[str, Any]] = field(default_factory=dict)
    forms: dict[int, dict[str, Any]] = field(default_factory=dict)
    user_documents: dict[int, dict[str, Any]] = field(default_factory=dict)
    schedulers: dict[int, dict[str, Any]] = field(default_factory=dict)
    shifts: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    operations: Operations = field(default_factory=Operations)
    version: int = 0
    spec_manifest: list[dict[str, Any]] = field(default_factory=list)
    """With ``data="spec"``: one ``{"stream", "key", "path", "kind"}`` per value the generator
    made deliberately unfit for its declared type or format (a date that is not a date, a
    timezone that is not one, an enum value outside the enum, an integer beyond 64 bits, ...);
    empty with ``data="emulator"``. Kinds and keys: :mod:`emulator.spec_data`."""
    spec: SpecData | None = None
    """With ``data="spec"``: the :class:`~emulator.spec_data.SpecData` that drew the records
    (new shifts of :meth:`mutate` come from it)."""
    _clock: int = 0
    _rng: random.Random = field(default_factory=random.Random)

    # -- generation ------------------------------------------------------------------------------

    @classmethod
    def generate(cls, config: EmulatorConfig) -> Dataset:
        """Build the account for ``config``; the same config always gives the same records.

        Raises:
            ValueError: ``config.data`` is neither ``emulator`` nor ``spec``.
        """
        if config.data == "spec":
            drawn = spec_account(config)
            return cls(
                config=config,
                users=drawn.users,
                forms=drawn.forms,
                user_documents=drawn.user_documents,
                schedulers=drawn.schedulers,
                shifts=drawn.shifts,
                operations=drawn.operations,
                spec_manifest=drawn.generator.manifest,
                spec=drawn.generator,
                _clock=config.resolved_anchor(),
                _rng=random.Random(config.seed + 1),
            )
        if config.data != "emulator":
            raise ValueError(f"data={config.data!r}: choose 'emulator' or 'spec'")
        rng = random.Random(config.seed)
        anchor = config.resolved_anchor()
        ds = cls(config=config, _rng=random.Random(config.seed + 1), _clock=anchor)
        for i in range(config.users):
            ds._add_user(rng, 1000 + i, anchor)
        for i in range(config.forms):
            ds._add_form(rng, 500 + i, anchor)
        ds._add_user_documents(random.Random(config.seed + 2), anchor)
        for i in range(config.schedulers):
            sid = 9000 + i
            ds.schedulers[sid] = {
                "schedulerId": sid,
                "name": SCHEDULER_NAMES[i % len(SCHEDULER_NAMES)]
                + ("" if i < len(SCHEDULER_NAMES) else f" {i}"),
                "isArchived": i > 0 and i % 7 == 0,
                "timezone": TIMEZONES[i % len(TIMEZONES)],
            }
            ds.shifts[sid] = []
        ds._add_shifts(rng, anchor)
        active = [u for u, rec in ds.users.items() if not rec["isArchived"]]
        ds.operations = Operations.generate(
            config.operations, config.seed, anchor, active, ds.forms, CUSTOM_FIELDS
        )
        ops = ds.operations
        # punches for every shift that has ended: by the anchor when one is set (repeatable),
        # else by the clock at start-up, so a shift that ended this morning is no false no-show
        ended_by = anchor if config.anchor is not None else max(anchor, int(clock_now()))
        tie_punches_to_shifts(ops, ds.shifts, ended_by, config.operations.attendance_share,
                              config.seed)  # fmt: skip
        ops.pay_leave = tidy_pay_leave(config.operations, config.seed, anchor, active, ops.jobs,
                                       ops.policy_types, list(ds.schedulers))  # fmt: skip
        return ds

    def _add_user(self, rng: random.Random, user_id: int, anchor: int) -> None:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        created = anchor - rng.randint(30, 900) * DAY + rng.randint(0, DAY - 1)
        modified = min(anchor - rng.randint(1, 20 * DAY), created + rng.randint(0, 200 * DAY))
        archived = rng.random() < self.config.archived_fraction
        user: dict[str, Any] = {
            "userId": user_id,
            "firstName": first,
            "lastName": last,
            "phoneNumber": f"+1{rng.randint(2000000000, 9899999999)}",
            "userType": "manager" if rng.random() < 0.05 else "user",
            "email": f"user{user_id}@example.com",
            "customFields": self._custom_fields(rng, user_id, created),
            "isArchived": archived,
            "kioskCode": f"{rng.randint(0, 9999):04d}",
            "createdAt": created,
            "modifiedAt": modified,
            "lastLogin": modified - rng.randint(0, 5) * DAY if rng.random() < 0.8 else 0,
            "smartGroupsIds": sorted(rng.sample(range(1, 12), rng.randint(0, 3))),
        }
        if archived:
            user["archivedAt"] = modified
        self.users[user_id] = user

    def _custom_fields(
        self, rng: random.Random, user_id: int, created: int
    ) -> list[dict[str, Any]]:
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

    def _add_user_documents(self, rng: random.Random, anchor: int) -> None:
        """User documents (``GET /documents/v1/user-documents``): one or two per chosen user."""
        next_id = 880_000
        for user_id in self.users:
            if rng.random() >= self.config.documents_fraction:
                continue
            for document_id, name, kind, pack in rng.sample(DOCUMENTS, rng.randint(1, 2)):
                created = anchor - rng.randint(1, 300) * DAY
                self.user_documents[next_id] = {
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

    def _add_form(self, rng: random.Random, form_id: int, anchor: int) -> None:
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
        self.forms[form_id] = {
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

    def _add_shifts(self, rng: random.Random, anchor: int) -> None:
        """Spread ``config.shifts`` V1 rows over the schedulers: single, multi-user and open."""
        if not self.schedulers or self.config.shifts <= 0:
            return
        active_users = [u for u, rec in self.users.items() if not rec["isArchived"]] or [1]
        scheduler_ids = list(self.schedulers)
        remaining = self.config.shifts
        created = anchor - (self.config.shift_days_back + 40) * DAY
        while remaining > 0:
            sid = scheduler_ids[rng.randrange(len(scheduler_ids))]
            roll = rng.random()
            spots = 1 if roll < 0.8 else min(remaining, rng.randint(2, 4))
            open_shift = roll > 0.95
            created += rng.randint(1, 60)
            rows = self._shift_rows(rng, sid, anchor, created, spots, open_shift, active_users)
            self.shifts[sid].extend(rows)
            remaining -= len(rows)
        self._clock = max(self._clock, created)

    def _shift_rows(
        self,
        rng: random.Random,
        scheduler_id: int,
        anchor: int,
        created: int,
        spots: int,
        open_shift: bool,
        users: list[int],
    ) -> list[dict[str, Any]]:
        tz = self.schedulers[scheduler_id]["timezone"]
        day = rng.randint(-self.config.shift_days_back, self.config.shift_days_ahead)
        local_day = datetime.fromtimestamp(anchor + day * DAY, ZoneInfo(tz)).date()
        hour = rng.choice([6, 9, 12, 14, 18, 22])  # 22:00 shifts run past local midnight
        start_local = datetime(
            local_day.year, local_day.month, local_day.day, hour, tzinfo=ZoneInfo(tz)
        )
        start = int(start_local.timestamp())
        end = start + rng.choice([4, 6, 8, 8, 10]) * 3600
        base_id = f"{rng.getrandbits(96):024x}"
        common: dict[str, Any] = {
            "color": rng.choice(COLORS),
            "startTime": start,
            "endTime": end,
            "timezone": tz,
            "title": rng.choice(SHIFT_TITLES),
            "jobId": f"job-{rng.randint(1, 8)}",
            "isPublished": rng.random() < 0.9,
            "isRequireAdminApproval": False,
            "creationTime": created,
            "updateTime": created,
            "createdBy": users[0],
            "notes": [{"type": "html", "html": "<p>Bring ID</p>"}] if rng.random() < 0.2 else [],
            "statuses": [],
            "breaks": [{"id": uuid_of(rng), "name": "Lunch", "type": "unpaid", "duration": 30}]
            if end - start >= 6 * 3600
            else [],
            "shiftDetails": {"shiftLayers": [], "shiftSource": None},
            "customFields": [],
            "locationData": {
                "isReferencedToJob": False,
                "gps": {"address": "Hauptstraße 1, Köln", "latitude": 50.94, "longitude": 6.96},
            },
        }
        if open_shift:
            return [{"id": base_id, "assignedUserIds": [], "isOpenShift": True,
                     "openSpots": spots, **common}]  # fmt: skip
        assignees = rng.sample(users, min(spots, len(users)))
        return [
            {"id": f"{base_id}:{uuid_of(rng)}", "assignedUserIds": [uid], "isOpenShift": False,
             "openSpots": 0, **common}
            for uid in assignees
        ]  # fmt: skip

    # -- changes between runs --------------------------------------------------------------------

    def tick(self) -> int:
        """A change time, epoch seconds: now, or one second past the last change (never
        earlier than the last change). With ``config.same_second_changes`` a change within the
        second of the last one gets the same second."""
        step = 0 if self.config.same_second_changes else 1
        self._clock = max(int(clock_now()), self._clock + step)
        return self._clock

    def mutate(
        self,
        users: int = 0,
        shifts: int = 0,
        delete_shifts: int = 0,
        new_shifts: int = 0,
        documents: int = 0,
        user_ids: list[int] | None = None,
        remove: dict[str, int] | None = None,
        move_shifts: int = 0,
        reassign_shifts: int = 0,
        add_shift_users: int = 0,
        unassign_shift_users: int = 0,
        edit_submissions: int = 0,
    ) -> dict[str, list[Any]]:
        """Change records as an admin would between two syncs.

        Args:
            users: Users to edit (name suffix, custom field, ``modifiedAt`` = now); every 5th edit
                archives or restores the user.
            shifts: Shift rows to edit (title, ``updateTime`` = now).
            delete_shifts: Shift rows to delete.
            new_shifts: Shift rows to add (single-user, inside the next 30 days).
            documents: User documents to move to another status (``updatedAt`` = now).
            user_ids: These users to edit as well, as ``users`` does (never archiving).
            remove: Records to delete outright (the provider stops listing them), by stream:
                ``{"jobs": 1, "tasks": 2}``; streams: :data:`REMOVABLE`. A job goes with its
                sub-jobs, a form with its submissions, a time clock with its activities, a task
                board with its tasks, a scheduler with its shifts.
            move_shifts: Future shifts to move two hours later (every slot of the shift).
            reassign_shifts: Future single-user slots to give to another user.
            add_shift_users: Future shifts to add one more assigned user to (a new V1 slot).
            unassign_shift_users: Future multi-user shifts to take one user off (the slot goes).
            edit_submissions: The newest form submissions to edit (their first open-ended
                answer changes; the API has no time of edit, as the provider's).

        Returns:
            The ids touched: ``{"users": [...], "shifts": [[schedulerId, id], ...],
            "deleted_shifts": [...], "new_shifts": [...], "documents": [...],
            "moved_shifts": [...], "reassigned_shifts": [...], "added_shift_users": [...],
            "unassigned_shift_users": [...] (all ``[schedulerId, slot id]``),
            "edited_submissions": [[formId, formSubmissionId], ...], "removed_<stream>": [...],
            "at": <the change time, epoch seconds>}``.

        Raises:
            ValueError: A count that is not a non-negative integer, an unknown user id, or a
                stream that cannot be removed from.
        """
        counts = {"users": users, "shifts": shifts, "delete_shifts": delete_shifts,
                  "new_shifts": new_shifts, "documents": documents, "move_shifts": move_shifts,
                  "reassign_shifts": reassign_shifts, "add_shift_users": add_shift_users,
                  "unassign_shift_users": unassign_shift_users,
                  "edit_submissions": edit_submissions, **(remove or {})}  # fmt: skip
        for name, value in counts.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        unknown = sorted(set(remove or {}) - set(REMOVABLE))
        if unknown:
            raise ValueError(f"cannot remove {unknown}; choose from {list(REMOVABLE)}")
        missing = [u for u in user_ids or [] if u not in self.users]
        if missing:
            raise ValueError(f"no such user ids: {missing}")
        rng = self._rng
        now = self.tick()
        touched: dict[str, list[Any]] = {
            "users": [], "shifts": [], "deleted_shifts": [], "new_shifts": [], "documents": []
        }  # fmt: skip
        for doc_id in rng.sample(
            sorted(self.user_documents), min(documents, len(self.user_documents))
        ):
            doc = self.user_documents[doc_id]
            doc["status"] = rng.choice([s for s in DOCUMENT_STATUSES if s != doc.get("status")])
            doc["updatedAt"] = now
            touched["documents"].append(doc_id)
        for uid in user_ids or []:
            user = self.users[uid]
            user["lastName"] = str(user.get("lastName") or "").split(" ·")[0] + f" ·{now % 1000}"
            user["modifiedAt"] = now
            user["kioskCode"] = f"{rng.randint(0, 9999):04d}"  # a change even within one second
            touched["users"].append(uid)
        for uid in rng.sample(sorted(self.users), min(users, len(self.users))):
            user = self.users[uid]
            user["lastName"] = str(user.get("lastName") or "").split(" ·")[0] + f" ·{now % 1000}"
            user["modifiedAt"] = now
            if len(touched["users"]) % 5 == 4:
                user["isArchived"] = not user["isArchived"]
                if user["isArchived"]:
                    user["archivedAt"] = now
                else:
                    user.pop("archivedAt", None)
            touched["users"].append(uid)
        all_rows = [(sid, i) for sid, rows in self.shifts.items() for i in range(len(rows))]
        picked = rng.sample(all_rows, min(shifts + delete_shifts, len(all_rows)))
        for sid, i in picked[:shifts]:
            row = self.shifts[sid][i]
            row["title"] = str(row.get("title") or "").split(" (")[0] + f" (edited {now % 1000})"
            row["updateTime"] = now
            touched["shifts"].append([sid, row["id"]])
        doomed = sorted(picked[shifts:], key=lambda p: -p[1])
        for sid, i in doomed:
            touched["deleted_shifts"].append([sid, self.shifts[sid].pop(i)["id"]])
        if self.spec is not None:
            gone = {shift_id for _, shift_id in touched["deleted_shifts"]}
            self.spec_manifest[:] = [
                e for e in self.spec_manifest if e["stream"] != "shifts" or e["key"] not in gone
            ]
        anchor = self.config.resolved_anchor()
        users_ = [u for u, rec in self.users.items() if not rec["isArchived"]] or [1]
        for _ in range(new_shifts):
            sid = rng.choice(sorted(self.shifts))
            if self.spec is not None:
                start = now // 3600 * 3600 + rng.randint(0, 29) * DAY
                row = self.spec.shift(start, now, self.config.shifts)
            else:
                row = self._shift_rows(rng, sid, anchor, now, 1, False, users_)[0]
                shift_day = rng.randint(0, 29)
                row["startTime"] = now // 3600 * 3600 + shift_day * DAY
                row["endTime"] = row["startTime"] + 8 * 3600
            self.shifts[sid].append(row)
            touched["new_shifts"].append([sid, row["id"]])
        for stream, count in sorted((remove or {}).items()):
            touched[f"removed_{stream}"] = self._remove(stream, count)
        touched.update(
            self._reschedule(
                now, move_shifts, reassign_shifts, add_shift_users, unassign_shift_users
            )
        )
        touched["edited_submissions"] = self._edit_submissions(now, edit_submissions)
        touched["at"] = now  # type: ignore[assignment]
        self.version += 1
        return touched

    def _future_shifts(self, now: int) -> list[tuple[int, str, list[dict[str, Any]]]]:
        """Shifts (all slots of one base id) of every scheduler starting after ``now``, as
        ``(schedulerId, base id, slots)`` in a stable order."""
        shifts: dict[tuple[int, str], list[dict[str, Any]]] = {}
        for sid, rows in sorted(self.shifts.items()):
            for row in rows:
                start = row.get("startTime")
                if isinstance(start, int) and start > now and isinstance(row.get("id"), str):
                    shifts.setdefault((sid, row["id"].split(":")[0]), []).append(row)
        return [(sid, base, slots) for (sid, base), slots in shifts.items()]

    def _reschedule(
        self, now: int, move: int, reassign: int, add: int, unassign: int
    ) -> dict[str, list[Any]]:
        """Move, reassign, add a user to and take a user off future shifts (see :meth:`mutate`);
        each shift is changed once."""
        kinds = ("moved_shifts", "reassigned_shifts", "added_shift_users", "unassigned_shift_users")
        out: dict[str, list[Any]] = {kind: [] for kind in kinds}
        if not (move or reassign or add or unassign):
            return out
        rng = self._rng
        candidates = self._future_shifts(now)
        rng.shuffle(candidates)
        staff = sorted(u for u, rec in self.users.items() if not rec.get("isArchived"))
        assigned = [c for c in candidates if not c[2][0].get("isOpenShift")]
        multi = [c for c in assigned if len(c[2]) > 1]
        used: set[tuple[int, str]] = set()

        def take(pool: list[tuple[int, str, list[dict[str, Any]]]], n: int) -> list[Any]:
            picked = [c for c in pool if (c[0], c[1]) not in used][:n]
            used.update((c[0], c[1]) for c in picked)
            return picked

        for sid, _base, slots in take(multi, unassign):
            gone = slots[-1]
            self.shifts[sid].remove(gone)
            out["unassigned_shift_users"].append([sid, gone["id"]])
        for sid, _base, slots in take(candidates, move):
            for row in slots:
                row["startTime"] += 2 * 3600
                row["endTime"] += 2 * 3600
                row["updateTime"] = now
                out["moved_shifts"].append([sid, row["id"]])
        for sid, _base, slots in take(assigned, reassign):
            row = slots[0]
            taken = {u for r in slots for u in r.get("assignedUserIds") or []}
            free = [u for u in staff if u not in taken]
            if free:
                row["assignedUserIds"] = [rng.choice(free)]
                row["updateTime"] = now
                out["reassigned_shifts"].append([sid, row["id"]])
        for sid, base, slots in take(assigned, add):
            taken = {u for r in slots for u in r.get("assignedUserIds") or []}
            free = [u for u in staff if u not in taken]
            if free:
                row = {**slots[0], "id": f"{base}:{uuid_of(rng)}",
                       "assignedUserIds": [rng.choice(free)], "creationTime": now,
                       "updateTime": now}  # fmt: skip
                self.shifts[sid].append(row)
                out["added_shift_users"].append([sid, row["id"]])
        return out

    def _edit_submissions(self, now: int, count: int) -> list[list[Any]]:
        """Change the first open-ended answer of the ``count`` newest form submissions (an edit
        by the submitter; one without such an answer is left alone); ``[[formId,
        formSubmissionId], ...]`` of those edited."""
        if not count:
            return []
        newest = sorted(
            ((s.get("submissionTimestamp") or 0, form_id, s)
             for form_id, rows in self.operations.form_submissions.items() for s in rows),
            key=lambda t: (t[0], str(t[2].get("formSubmissionId"))), reverse=True,
        )[:count]  # fmt: skip
        out: list[list[Any]] = []
        for _, form_id, submission in newest:
            answers = submission.get("answers")
            for k, answer in enumerate(answers if isinstance(answers, list) else []):
                if isinstance(answer, dict) and answer.get("questionType") == "openEnded":
                    answers[k] = {**answer, "value": f"edited at {now}", "wasSubmittedEmpty": False}  # type: ignore[index]
                    out.append([form_id, submission.get("formSubmissionId")])
                    break
        return out

    def _remove(self, stream: str, count: int) -> list[Any]:
        """Delete ``count`` records of ``stream`` (drawn from the seeded generator); their ids."""
        rng = self._rng
        own: dict[str, dict[int, Any]] = {
            "forms": self.forms, "schedulers": self.schedulers,
            "user_documents": self.user_documents,
        }  # fmt: skip
        if stream not in own:
            return self.operations.remove(stream, count, rng)
        records = own[stream]
        gone = rng.sample(sorted(records), min(count, len(records)))
        for key in gone:
            del records[key]
            if stream == "forms":
                self.operations.form_submissions.pop(key, None)
            if stream == "schedulers":
                self.shifts.pop(key, None)
        return gone
