"""The tidy account's smart groups and segments (served by :mod:`emulator.groups`): the segments
Departments, Locations and Teams and eleven groups, ids 1..11, the ids its users'
``smartGroupsIds`` name."""

from __future__ import annotations

from typing import Any

SEGMENTS = [(1, "Departments", "#4f6bed"), (2, "Locations", "#2bb673"), (3, "Teams", "#f5a623")]
GROUPS = [
    (1, "Kitchen", 1), (2, "Front of house", 1), (3, "Warehouse", 1), (4, "Downtown", 2),
    (5, "Harbour", 2), (6, "Airport", 2), (7, "Old Town", 2), (8, "Early birds", 3),
    (9, "Weekend crew", 3), (10, "Trainees", 3), (11, "Supervisors", 3),
]  # fmt: skip
"""``(id, name, segment id)`` of the tidy account's groups: ids 1..11, as the users name them."""


def tidy_groups() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The tidy account's ``(groups, segments)`` (``SmartGroup``, ``SmartGroupSegment``); each
    group's ``numberOfUsers`` is 0 here and counted when served."""
    segments = [{"id": i, "name": n, "color": c, "sortOrder": k}
                for k, (i, n, c) in enumerate(SEGMENTS)]  # fmt: skip
    groups = [{"id": i, "name": n, "description": f"{n} ({SEGMENTS[s - 1][1].lower()})",
               "groupSegmentId": s, "numberOfUsers": 0, "isAutomaticallyCreated": s == 2,
               "adminUserIds": []} for i, n, s in GROUPS]  # fmt: skip
    return groups, segments
