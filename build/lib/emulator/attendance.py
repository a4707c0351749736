"""Tidy data: shift punches tied to the schedule, so attendance has something to measure.

The past, published, single-user shift rows (those that ended by the emulator's now), newest first,
get a working pattern each while patterns with shift punches last, except a share left without
one (the no-shows, ``1 - attendance_share``). A pattern is one shift punch, or the activities of
one working day that belong together (a shift split by a mobile break: shift, break, shift; a
shift with an API break inside): it moves as a whole. A pattern moved onto a shift takes the
shift's user, its shift punches the ``schedulerShiftId`` (the shift's base id), and times near
the shift's, in a fixed pattern by punch: on time (within five minutes), a few minutes late, 10-30
minutes late, or leaving 30-60 minutes early; a mobile break stays between its two punches, an
API break inside its punch. One pattern in twenty, and any left over, match no shift
(unscheduled). The number of activities is unchanged. Which assignment each moved punch was
for is kept (``Operations.punch_assignments``): the truth attendance is checked against.
"""

from __future__ import annotations

import random
from typing import Any

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
    del punches[: max(1, len(punches) // 20)]  # one in twenty stays unscheduled
    moved = 0
    while past and punches:
        scheduler_id, shift = past.pop()  # the newest first
        if rng.random() >= share:
            continue  # a no-show
        group = punches.pop()
        start, end = shift["startTime"], shift["endTime"]
        what = PATTERN[moved % len(PATTERN)]
        late = {"late": rng.randint(10, 30), "few_minutes": rng.randint(6, 9)}
        start += late.get(what, rng.randint(-5, 4)) * 60
        end += -rng.randint(30, 60) * 60 if what == "early_leave" else rng.randint(0, 6) * 60
        zone = shift.get("timezone") or group[0]["record"]["start"]["timezone"]
        _place(group, start, end, zone)
        base_id = str(shift["id"]).split(":", 1)[0]
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
    return moved


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
