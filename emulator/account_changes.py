"""The changes an admin makes to the emulated account between two syncs
(:meth:`Dataset.mutate <emulator.data.Dataset.mutate>`): what may change (:class:`Changes`) and
the edits themselves, each a function over the records it changes, drawing from the seeded
``random.Random`` it is given. Times are UTC epoch seconds.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from .vocabulary import DOCUMENT_STATUSES, uuid_of

Records = dict[int, dict[str, Any]]
Shifts = dict[int, list[dict[str, Any]]]
"""V1 shift rows by scheduler id."""
Slots = tuple[int, str, list[dict[str, Any]]]
"""One shift: ``(schedulerId, base shift id, its V1 rows)``."""


@dataclass(frozen=True)
class Changes:
    """What one :meth:`~emulator.data.Dataset.mutate` changes; counts are non-negative integers.

    Attributes:
        users: Users to edit (name suffix, custom field, ``modifiedAt`` = now); every 5th edit
            archives or restores the user.
        shifts: Shift rows to edit (title, ``updateTime`` = now).
        delete_shifts: Shift rows to delete.
        new_shifts: Shift rows to add (single-user, inside the next 30 days).
        documents: User documents to move to another status (``updatedAt`` = now).
        user_ids: These users to edit as well, as ``users`` does (never archiving).
        remove: Records to delete outright (the provider stops listing them), by stream:
            ``{"jobs": 1, "tasks": 2}``; streams: :data:`emulator.data.REMOVABLE`. A job goes
            with its sub-jobs, a form with its submissions, a time clock with its activities, a
            task board with its tasks, a scheduler with its shifts.
        move_shifts: Future shifts to move two hours later (every slot of the shift).
        reassign_shifts: Future single-user slots to give to another user.
        add_shift_users: Future shifts to add one more assigned user to (a new V1 slot).
        unassign_shift_users: Future multi-user shifts to take one user off (the slot goes).
        edit_submissions: The newest form submissions to edit (their first open-ended answer
            changes; the API has no time of edit, as the provider's).
    """

    users: int = 0
    shifts: int = 0
    delete_shifts: int = 0
    new_shifts: int = 0
    documents: int = 0
    user_ids: list[int] | None = None
    remove: dict[str, int] | None = field(default=None)
    move_shifts: int = 0
    reassign_shifts: int = 0
    add_shift_users: int = 0
    unassign_shift_users: int = 0
    edit_submissions: int = 0

    def check(self, users: Records, removable: Iterable[str]) -> None:
        """Check the changes can be made to an account of ``users`` whose streams
        ``removable`` can lose records.

        Raises:
            ValueError: A count that is not a non-negative integer, an unknown user id, or a
                stream that cannot be removed from.
        """
        counts = {k: v for k, v in asdict(self).items() if k not in ("user_ids", "remove")}
        for name, value in {**counts, **(self.remove or {})}.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        allowed = list(removable)
        unknown = sorted(set(self.remove or {}) - set(allowed))
        if unknown:
            raise ValueError(f"cannot remove {unknown}; choose from {allowed}")
        missing = [u for u in self.user_ids or [] if u not in users]
        if missing:
            raise ValueError(f"no such user ids: {missing}")


def edit_documents(documents: Records, rng: random.Random, count: int, now: int) -> list[int]:
    """Move ``count`` user documents drawn by ``rng`` to another status (``updatedAt`` =
    ``now``); their ids."""
    touched = []
    for doc_id in rng.sample(sorted(documents), min(count, len(documents))):
        doc = documents[doc_id]
        doc["status"] = rng.choice([s for s in DOCUMENT_STATUSES if s != doc.get("status")])
        doc["updatedAt"] = now
        touched.append(doc_id)
    return touched


def edit_users(
    users: Records, rng: random.Random, user_ids: list[int], count: int, now: int
) -> list[int]:
    """Edit the users ``user_ids`` (a new kiosk code as well), then ``count`` users drawn by
    ``rng``, every 5th edit of all archiving or restoring its user: last name suffixed
    `` ·<now % 1000>``, ``modifiedAt`` = ``now``. The ids edited, in order."""
    touched: list[int] = []
    for uid in user_ids:
        _rename(users[uid], now)
        users[uid]["kioskCode"] = f"{rng.randint(0, 9999):04d}"  # a change within one second
        touched.append(uid)
    for uid in rng.sample(sorted(users), min(count, len(users))):
        user = users[uid]
        _rename(user, now)
        if len(touched) % 5 == 4:
            user["isArchived"] = not user["isArchived"]
            if user["isArchived"]:
                user["archivedAt"] = now
            else:
                user.pop("archivedAt", None)
        touched.append(uid)
    return touched


def _rename(user: dict[str, Any], now: int) -> None:
    user["lastName"] = str(user.get("lastName") or "").split(" ·")[0] + f" ·{now % 1000}"
    user["modifiedAt"] = now


def edit_shifts(
    shifts: Shifts, rng: random.Random, edit: int, delete: int, now: int
) -> tuple[list[list[Any]], list[list[Any]]]:
    """Edit ``edit`` shift rows drawn by ``rng`` (title suffixed `` (edited <now % 1000>)``,
    ``updateTime`` = ``now``) and delete ``delete`` others that have not started (a manager
    cancels a shift before it starts; a change after the start is an admin's cleanup, not a
    cancellation); ``(edited, deleted)`` as ``[schedulerId, slot id]`` lists."""
    all_rows = [(sid, i) for sid, rows in shifts.items() for i in range(len(rows))]
    picked = rng.sample(all_rows, min(edit, len(all_rows)))
    taken = set(picked)
    future = [
        (sid, i)
        for sid, i in all_rows
        if (sid, i) not in taken
        and isinstance(shifts[sid][i].get("startTime"), int)
        and shifts[sid][i]["startTime"] > now
    ]
    picked += rng.sample(future, min(delete, len(future)))
    edited: list[list[Any]] = []
    for sid, i in picked[:edit]:
        row = shifts[sid][i]
        row["title"] = str(row.get("title") or "").split(" (")[0] + f" (edited {now % 1000})"
        row["updateTime"] = now
        edited.append([sid, row["id"]])
    deleted = [[sid, shifts[sid].pop(i)["id"]]
               for sid, i in sorted(picked[edit:], key=lambda p: -p[1])]  # fmt: skip
    return edited, deleted


def future_shifts(shifts: Shifts, now: int) -> list[Slots]:
    """Shifts (all slots of one base id) of every scheduler starting after ``now``, as
    ``(schedulerId, base id, slots)`` in a stable order."""
    found: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for sid, rows in sorted(shifts.items()):
        for row in rows:
            start = row.get("startTime")
            if isinstance(start, int) and start > now and isinstance(row.get("id"), str):
                found.setdefault((sid, row["id"].split(":")[0]), []).append(row)
    return [(sid, base, slots) for (sid, base), slots in found.items()]


RESCHEDULED = ("moved_shifts", "reassigned_shifts", "added_shift_users", "unassigned_shift_users")
"""The keys of :func:`reschedule`'s answer."""


def reschedule(
    shifts: Shifts, users: Records, rng: random.Random, now: int, changes: Changes
) -> dict[str, list[Any]]:
    """Take a user off, move, reassign and add a user to future shifts (``changes``'
    ``unassign_shift_users``, ``move_shifts``, ``reassign_shifts``, ``add_shift_users``), each
    shift changed once; the slots touched by kind (:data:`RESCHEDULED`), as ``[schedulerId,
    slot id]`` lists."""
    out: dict[str, list[Any]] = {kind: [] for kind in RESCHEDULED}
    counts = (changes.move_shifts, changes.reassign_shifts, changes.add_shift_users,
              changes.unassign_shift_users)  # fmt: skip
    if not any(counts):
        return out
    candidates = future_shifts(shifts, now)
    rng.shuffle(candidates)
    staff = sorted(u for u, rec in users.items() if not rec.get("isArchived"))
    assigned = [c for c in candidates if not c[2][0].get("isOpenShift")]
    used: set[tuple[int, str]] = set()

    def take(pool: list[Slots], n: int) -> list[Slots]:
        picked = [c for c in pool if (c[0], c[1]) not in used][:n]
        used.update((c[0], c[1]) for c in picked)
        return picked

    multi = [c for c in assigned if len(c[2]) > 1]
    for sid, _base, slots in take(multi, changes.unassign_shift_users):
        shifts[sid].remove(slots[-1])
        out["unassigned_shift_users"].append([sid, slots[-1]["id"]])
    for sid, _base, slots in take(candidates, changes.move_shifts):
        out["moved_shifts"] += [[sid, row["id"]] for row in _moved(slots, now)]
    for sid, _base, slots in take(assigned, changes.reassign_shifts):
        free = _free(staff, slots)
        if free:
            slots[0].update(assignedUserIds=[rng.choice(free)], updateTime=now)
            out["reassigned_shifts"].append([sid, slots[0]["id"]])
    for sid, base, slots in take(assigned, changes.add_shift_users):
        free = _free(staff, slots)
        if free:
            row = {**slots[0], "id": f"{base}:{uuid_of(rng)}",
                   "assignedUserIds": [rng.choice(free)], "creationTime": now,
                   "updateTime": now}  # fmt: skip
            shifts[sid].append(row)
            out["added_shift_users"].append([sid, row["id"]])
    return out


def _moved(slots: list[dict[str, Any]], now: int) -> list[dict[str, Any]]:
    """``slots`` moved two hours later (``updateTime`` = ``now``)."""
    for row in slots:
        row["startTime"] += 2 * 3600
        row["endTime"] += 2 * 3600
        row["updateTime"] = now
    return slots


def _free(staff: list[int], slots: list[dict[str, Any]]) -> list[int]:
    """``staff`` not assigned to any of ``slots``."""
    taken = {u for r in slots for u in r.get("assignedUserIds") or []}
    return [u for u in staff if u not in taken]


def edit_submissions(
    form_submissions: dict[int, list[dict[str, Any]]], now: int, count: int
) -> list[list[Any]]:
    """Change the first open-ended answer of the ``count`` newest form submissions (an edit
    by the submitter; one without such an answer is left alone); ``[[formId,
    formSubmissionId], ...]`` of those edited."""
    if not count:
        return []
    newest = sorted(
        ((s.get("submissionTimestamp") or 0, form_id, s)
         for form_id, rows in form_submissions.items() for s in rows),
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
