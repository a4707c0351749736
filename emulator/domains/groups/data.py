"""The groups domain's records (:class:`Groups`: smart groups and their segments, served by
:mod:`emulator.domains.groups.routes`) and the tidy account's (:func:`tidy`): the segments
Departments, Locations and Teams and eleven groups, ids 1..11, the ids its users'
``smartGroupsIds`` name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...protocols import Account
from ..domain import records_of

NAME = "groups"
SEGMENTS = [(1, "Departments", "#4f6bed"), (2, "Locations", "#2bb673"), (3, "Teams", "#f5a623")]
GROUPS = [
    (1, "Kitchen", 1), (2, "Front of house", 1), (3, "Warehouse", 1), (4, "Downtown", 2),
    (5, "Harbour", 2), (6, "Airport", 2), (7, "Old Town", 2), (8, "Early birds", 3),
    (9, "Weekend crew", 3), (10, "Trainees", 3), (11, "Supervisors", 3),
]  # fmt: skip
"""``(id, name, segment id)`` of the tidy account's groups: ids 1..11, as the users name them."""


@dataclass
class Groups:
    """Smart groups of one account.

    Attributes:
        groups: ``SmartGroup`` records, in id order.
        segments: ``SmartGroupSegment`` records, in id order.
        tidy: Whether a group's ``numberOfUsers`` is counted from the users when served (the
            tidy account); spec data keeps the drawn value.
    """

    groups: list[dict[str, Any]] = field(default_factory=list)
    segments: list[dict[str, Any]] = field(default_factory=list)
    tidy: bool = True


def groups_of(account: Account) -> Groups:
    """The account's smart groups (see :func:`~emulator.domains.domain.records_of`)."""
    return records_of(account, NAME, Groups)


def listed(account: Account) -> dict[str, list[dict[str, Any]]]:
    """Every smart group and segment (see :attr:`~emulator.domains.domain.Domain.listed`)."""
    found = groups_of(account)
    return {"smart_groups": found.groups, "smart_group_segments": found.segments}


def tidy(account: Account, anchor: int) -> Groups:
    """The tidy account's groups and segments (the same for every account and ``anchor``);
    each group's ``numberOfUsers`` is 0 here and counted when served."""
    segments = [{"id": i, "name": n, "color": c, "sortOrder": k}
                for k, (i, n, c) in enumerate(SEGMENTS)]  # fmt: skip
    groups = [{"id": i, "name": n, "description": f"{n} ({SEGMENTS[s - 1][1].lower()})",
               "groupSegmentId": s, "numberOfUsers": 0, "isAutomaticallyCreated": s == 2,
               "adminUserIds": []} for i, n, s in GROUPS]  # fmt: skip
    return Groups(groups, segments)
