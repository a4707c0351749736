"""Tidy data: shift punches tied to the schedule, so attendance has something to measure.

Of the past, published, single-user shift rows (those that ended by the emulator's now), a share
(``attendance_share``) is drawn to be worked, the rest are no-shows; when there are fewer patterns
with shift punches than shifts to work, an evenly spaced selection of those is worked, so the
shortfall falls on every day alike (never a run of days with nobody punching). A pattern is one
shift punch, or the activities of one working day that belong together (a shift split by a mobile
break: shift, break, shift; a shift with an API break inside): it moves as a whole. A pattern moved
onto a shift takes the shift's user, its shift punches the ``schedulerShiftId`` (the shift's base
id), and times near the shift's, in a fixed pattern by punch: on time (within five minutes), a few
minutes late, 10-30 minutes late, or leaving 30-60 minutes early; a mobile break stays between its
two punches, an API break inside its punch. One pattern in twenty, and any left over, match no
shift (unscheduled); one that would overlap another punch of its user, or start on a local day one
of theirs starts on, goes to the next user free then, so nobody holds two punches at once. The
number of activities is unchanged. Which assignment each moved punch was for is kept
(``Operations.punch_assignments``): the truth attendance is checked against.
"""

from __future__ import annotations

import random
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from .operations_data import Operations
from .operations_records import activity_point

PATTERN = ("on_time", "on_time", "on_time", "on_time", "late", "late", "few_minutes",
           "early_leave", "on_time", "on_time")  # fmt: skip
"""What the n-th moved punch does, cycling."""


def tie_punches_to_shifts(
    ops: Operations, shifts: dict[int, list[dict[str, Any]]], anchor: int, share: float, seed: int
) -> int:
    """Move shift punches onto past shift rows (see the module docstring).

    Args:
        ops: The operations records; their activities are changed in place.
        shifts: V1 shift rows by scheduler id.
        anchor: The emulator's now (UTC epoch seconds): only shifts that ended by then.
        share: Share of the past shifts that get a punch (0..1); the rest are no-shows.
        seed: Seed of the choice.

    Returns:
        The punches moved.
    """
    rng = random.Random(seed * 31 + 5)
    past = sorted(
        ((sid, row) for sid, rows in shifts.items() for row in rows
         if row.get("isPublished") and len(row.get("assignedUserIds") or []) == 1
         and row["endTime"] <= anchor),
        key=lambda p: (p[1]["startTime"], str(p[1]["id"])),
    )  # fmt: skip
    patterns: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for clock, items in ops.activities.items():
        for item in items:
            patterns.setdefault((clock, item.get("group", id(item))), []).append(item)
    punches = [group for group in patterns.values()
               if any(item["kind"] == "shifts" for item in group)]  # fmt: skip
    punches.reverse()
    unscheduled = punches[: max(1, len(punches) // 20)]  # one in twenty stays unscheduled
    del punches[: len(unscheduled)]
    worked = [shift for shift in past if rng.random() < share]  # the rest: no-shows
    if len(worked) > len(punches):  # too few patterns: an even share of every day
        step = len(worked) / max(1, len(punches))
        worked = [worked[int(k * step)] for k in range(len(punches))]
    moved = 0
    for scheduler_id, shift in worked:
        group = punches.pop()
        start, end = shift["startTime"], shift["endTime"]
        what = PATTERN[moved % len(PATTERN)]
        late = {"late": rng.randint(10, 30), "few_minutes": rng.randint(6, 9)}
        start += late.get(what, rng.randint(-5, 4)) * 60
        end += -rng.randint(30, 60) * 60 if what == "early_leave" else rng.randint(0, 6) * 60
        zone = shift.get("timezone") or group[0]["record"]["start"]["timezone"]
        _place(group, start, end, zone)
        base_id = str(shift["id"]).split(":", 1)[0]
        ops.planned_shifts[(base_id, shift["assignedUserIds"][0])] = _planned(shift, zone)
        for item in group:
            item["userId"] = shift["assignedUserIds"][0]
            if item["kind"] == "shifts":
                item["record"]["schedulerShiftId"] = base_id
                ops.punch_assignments[item["record"]["id"]] = (
                    scheduler_id,
                    base_id,
                    shift["assignedUserIds"][0],
                )
        moved += 1
    loose = punches + unscheduled
    kept = {id(group) for group in loose}
    _keep_apart(loose, [group for group in patterns.values() if id(group) not in kept])
    return moved


def _planned(shift: dict[str, Any], zone: str) -> tuple[float, date]:
    """A V1 shift row's planned hours (its length less its unpaid breaks, as
    ``fct_shifts.scheduled_hours`` counts them) and the local day of its start in ``zone``."""
    unpaid = sum(
        int(b.get("duration") or 0) for b in shift.get("breaks") or [] if b.get("type") == "unpaid"
    )
    hours = round((shift["endTime"] - shift["startTime"]) / 3600 - unpaid / 60, 4)
    return hours, datetime.fromtimestamp(shift["startTime"], ZoneInfo(zone)).date()


def _span(group: list[dict[str, Any]]) -> tuple[int, int, date]:
    """The first start and last end (epoch seconds) of a pattern's shift punches, and the local
    day of its first start (in that punch's timezone)."""
    records = sorted(
        (item["record"] for item in group if item["kind"] == "shifts"),
        key=lambda r: r["start"]["timestamp"],
    )
    first = records[0]["start"]
    return (
        first["timestamp"],
        max(r["end"]["timestamp"] for r in records),
        datetime.fromtimestamp(first["timestamp"], ZoneInfo(first["timezone"])).date(),
    )


def _keep_apart(loose: list[list[dict[str, Any]]], placed: list[list[dict[str, Any]]]) -> None:
    """Give each ``loose`` pattern (unscheduled punches) that overlaps a punch of its user, or
    starts on a local day another of the user's punches starts on, to the next user (in id
    order) free then; ``placed`` patterns stay as they are."""
    busy: dict[int, list[tuple[int, int, date]]] = {}
    for group in placed:
        if any(item["kind"] == "shifts" for item in group):
            busy.setdefault(group[0]["userId"], []).append(_span(group))
    users = sorted({group[0]["userId"] for group in [*placed, *loose]})

    def free(user: int, start: int, end: int, day: date) -> bool:
        return all((e <= start or end <= s) and d != day for s, e, d in busy.get(user, ()))

    for group in loose:
        start, end, day = _span(group)
        user = group[0]["userId"]
        if not free(user, start, end, day):
            at = users.index(user)
            ring = users[at + 1 :] + users[:at]
            user = next((u for u in ring if free(u, start, end, day)), user)
            for item in group:
                item["userId"] = user
        busy.setdefault(user, []).append((start, end, day))


def _place(group: list[dict[str, Any]], start: int, end: int, zone: str) -> None:
    """Lay a pattern's activities over ``start..end`` (UTC epoch seconds), keeping its shape: a
    lone punch spans it; a mobile break sits in the middle, its punches either side; an API break
    lies inside its punch, a third of the way in."""
    shifts = [item["record"] for item in group if item["kind"] == "shifts"]
    breaks = [item["record"] for item in group if item["kind"] == "manualBreaks"]

    def put(record: dict[str, Any], lo: int, hi: int) -> None:
        record["start"] = {**record["start"], **activity_point(lo, zone)}
        record["end"] = {**record["end"], **activity_point(hi, zone)}
        record["createdAt"], record["modifiedAt"] = lo, hi + 60

    length = {id(b): b["end"]["timestamp"] - b["start"]["timestamp"] for b in breaks}
    if len(shifts) == 2 and breaks:  # shift, mobile break, shift
        pause = start + (end - start) // 2 // 60 * 60
        back = pause + length[id(breaks[0])]
        put(shifts[0], start, pause)
        put(breaks[0], pause, back)
        put(shifts[1], back, max(back + 60, end))
        return
    put(shifts[0], start, end)
    for brk in breaks:  # inside the punch
        pause = start + (end - start) // 3 // 60 * 60
        put(brk, pause, min(end, pause + length[id(brk)]))
