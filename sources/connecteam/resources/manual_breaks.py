"""``manual_breaks`` (``GET /time-clock/v1/time-clocks/{timeClockId}/manual-breaks``): each time
clock's manual-break policies, merged on ``manual_break_key`` = clock:id."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from dlt.sources import DltResource

from ..arrow_rows import BIGINT, BOOL
from ..client import ConnecteamClient
from .children import Parent, child_listing
from .common import DELETION_MARK
from .run import Builders

MANUAL_BREAK_COLUMNS: dict[str, str] = {
    "time_clock_id": "bigint!",
    "is_paid": BOOL,
    "duration": BIGINT,
    **DELETION_MARK,
}


def manual_break_row(time_clock_id: int, record: dict[str, Any]) -> dict[str, Any]:
    """One manual-break policy (``ManualBreakResponse``: ``id``, ``name``, ``isPaid``,
    ``duration`` in minutes) of time clock ``time_clock_id``; ``manual_break_key`` =
    ``clock:id``."""
    return {
        "manual_break_key": f"{time_clock_id}:{record['id']}",
        "time_clock_id": time_clock_id,
        "id": str(record["id"]),
        "name": record.get("name"),
        "is_paid": record.get("isPaid"),
        "duration": record.get("duration"),
    }


def manual_breaks(
    client: ConnecteamClient, time_clock_list: Callable[[], list[dict[str, Any]]]
) -> DltResource:
    """``manual_breaks``: every time clock's manual-break policies, merged on
    ``manual_break_key``; only new or changed ones load. Whether a break is paid is the
    policy's (``isPaid``): the models read it to split break hours into paid and unpaid. A loaded
    policy no longer listed is marked deleted, unless its clock's listing failed (404: the clock
    vanished since it was listed) (:func:`~.children.child_listing`)."""

    def parents() -> list[Parent]:
        return [
            Parent(
                {"timeClockId": int(clock["id"])},
                f"{int(clock['id'])}:",
                partial(manual_break_row, int(clock["id"])),
            )
            for clock in time_clock_list()
        ]

    key = "manual_break_key"
    return child_listing(client, "manual_breaks", key, MANUAL_BREAK_COLUMNS, parents)


RESOURCES: Builders = {"manual_breaks": lambda run: manual_breaks(run.client, run.time_clocks)}
"""This domain's streams and how each one's resource is built for a run."""
