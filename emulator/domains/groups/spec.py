"""The spec data mode for the groups domain: three segments (``SmartGroupSegment``, ids 1..3)
and eleven groups (``SmartGroup``, ids 1..11, ``groupSegmentId`` 1 + id mod 3) drawn from their
schemas by :class:`~emulator.spec_records.SpecData`; only those ids are set here."""

from __future__ import annotations

from ...protocols import Account
from ...spec_records import SpecData
from .data import Groups

SEGMENT = "SmartGroupSegment"
GROUP = "SmartGroup"


def spec(gen: SpecData, account: Account) -> Groups:
    """The groups of a spec-data account (see the module docstring), the segments drawn
    first; a group's drawn ``numberOfUsers`` is served as drawn."""
    segments = [gen.record(SEGMENT, "smart_group_segments", k, {"id": k}, 3) for k in (1, 2, 3)]
    groups = [
        gen.record(GROUP, "smart_groups", k, {"id": k, "groupSegmentId": 1 + k % 3}, 11)
        for k in range(1, 12)
    ]
    return Groups(groups, segments, tidy=False)
