"""``manual_breaks`` (``GET /time-clock/v1/time-clocks/{timeClockId}/manual-breaks``): each time
clock's manual-break policies, merged on ``manual_break_key`` = clock:id."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.clock import now as clock_now

from ..arrow_rows import BIGINT, BOOL, hints
from ..client import ConnecteamClient
from ..errors import ParentNotFoundError
from ..listing import live
from ..loaded import only_changed, vanished
from ..registry import STREAMS
from .common import DELETION_MARK, listing_tables

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
    vanished since it was listed)."""

    @dlt.resource(
        name="manual_breaks",
        primary_key="manual_break_key",
        write_disposition="merge",
        columns=hints(MANUAL_BREAK_COLUMNS),
    )
    def _manual_breaks() -> Iterator[pa.Table]:
        rows: list[dict[str, Any]] = []
        unlisted: list[int] = []  # clocks whose policies could not be listed
        for clock in time_clock_list():
            clock_id = int(clock["id"])
            try:
                for page in client.paginate(
                    STREAMS["manual_breaks"], None, {"timeClockId": clock_id}
                ):
                    rows += [manual_break_row(clock_id, record) for record in page]
            except ParentNotFoundError as exc:
                client.skip_parent(exc, "manual_breaks")
                unlisted.append(clock_id)
        changed = [live(r) for r in only_changed(rows, "manual_break_key")]
        marks = ", ".join(["%s"] * len(unlisted))
        where = f"time_clock_id not in ({marks})" if unlisted else "true"
        seen = {r["manual_break_key"] for r in rows}
        now, args = int(clock_now()), tuple(unlisted)
        gone = vanished("manual_breaks", "manual_break_key", seen, True, now, where, args)
        yield from listing_tables(client, "manual_breaks", MANUAL_BREAK_COLUMNS, changed, gone)

    return _manual_breaks
