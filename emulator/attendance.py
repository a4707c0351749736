"""Tidy data: shift punches tied to the schedule, so attendance has something to measure.

The past, published, single-user shift rows (those that ended before the anchor), newest first,
get a punch each while shift punches (time activities of kind ``shifts``) last, except a share
left without one (the no-shows, ``1 - attendance_share``). A punch moved onto a shift takes the
shift's user, its ``schedulerShiftId`` (the shift's base id) and times near the shift's, in a
fixed pattern by punch: on time (within five minutes), a few minutes late, 10-30 minutes late, or
leaving 30-60 minutes early. One punch in twenty, and any left over, match no shift
(unscheduled). The number of activities is unchanged.
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
        anchor: The emulator's now (UTC epoch seconds): only shifts that ended before it.
        share: Share of the past shifts that get a punch (0..1); the rest are no-shows.
        seed: Seed of the choice.

    Returns:
        The punches moved.
    """
    rng = random.Random(seed * 31 + 5)
    past = sorted(
        (row for rows in shifts.values() for row in rows
         if row.get("isPublished") and len(row.get("assignedUserIds") or []) == 1
         and row["endTime"] <= anchor),
        key=lambda r: (r["startTime"], str(r["id"])),
    )  # fmt: skip
    punches = [item for items in ops.activities.values() for item in items
               if item["kind"] == "shifts"]  # fmt: skip
    punches.reverse()
    del punches[: max(1, len(punches) // 20)]  # one in twenty stays unscheduled
    moved = 0
    while past and punches:
        shift = past.pop()  # the newest first
        if rng.random() >= share:
            continue  # a no-show
        item = punches.pop()
        start, end = shift["startTime"], shift["endTime"]
        what = PATTERN[moved % len(PATTERN)]
        late = {"late": rng.randint(10, 30), "few_minutes": rng.randint(6, 9)}
        start += late.get(what, rng.randint(-5, 4)) * 60
        end += -rng.randint(30, 60) * 60 if what == "early_leave" else rng.randint(0, 6) * 60
        record = item["record"]
        zone = shift.get("timezone") or record["start"]["timezone"]
        record["start"] = {**record["start"], **activity_point(start, zone)}
        record["end"] = {**record["end"], **activity_point(end, zone)}
        record["createdAt"], record["modifiedAt"] = start, end + 60
        record["schedulerShiftId"] = str(shift["id"]).split(":", 1)[0]
        item["userId"] = shift["assignedUserIds"][0]
        moved += 1
    return moved
