"""Tidy data: shift punches tied to the schedule, so attendance has something to measure.

A share of the generated shift punches (time activities of kind ``shifts``) is moved onto a past,
published, single-user shift row: the punch takes the shift's user, its ``schedulerShiftId`` (the
shift's base id) and times near the shift's, in a fixed pattern by punch: on time (within five
minutes), a few minutes late, 10-30 minutes late, or leaving 30-60 minutes early. Shifts no punch
lands on are no-shows; punches not moved match no shift. The number of activities is unchanged.
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
    """Move ``share`` of the shift punches onto past shift rows (see the module docstring).

    Args:
        ops: The operations records; their activities are changed in place.
        shifts: V1 shift rows by scheduler id.
        anchor: The emulator's now (UTC epoch seconds): only shifts that ended before it.
        share: Share of the shift punches to move (0..1).
        seed: Seed of the choice.

    Returns:
        The punches moved.
    """
    rng = random.Random(seed * 31 + 5)
    past = [
        row
        for rows in shifts.values()
        for row in rows
        if row.get("isPublished")
        and len(row.get("assignedUserIds") or []) == 1
        and row["endTime"] <= anchor
    ]
    rng.shuffle(past)
    moved = 0
    for items in ops.activities.values():
        for item in items:
            if item["kind"] != "shifts" or not past or rng.random() >= share:
                continue
            shift = past.pop()
            start, end = shift["startTime"], shift["endTime"]
            what = PATTERN[moved % len(PATTERN)]
            start += {"late": rng.randint(10, 30), "few_minutes": rng.randint(6, 9)}.get(
                what, rng.randint(-5, 4)
            ) * 60
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
