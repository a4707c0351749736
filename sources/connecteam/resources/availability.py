"""Availability resource: ``scheduler_unavailabilities``
(``GET /scheduler/v1/schedulers/{schedulerId}/unavailabilities``, merged on ``scheduler_id`` +
``id``), per scheduler, in the shifts' window."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import partial
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import BIGINT, BOOL, TEXT, ArrowRows, hints
from ..client import ConnecteamClient
from ..contract import deletions_allowed
from ..errors import ParentNotFoundError
from ..fanout import in_parallel
from ..listing import PageCheck, checked_pages, content_hash, second_pass
from ..registry import STREAMS
from ..windows import WindowDiff, shift_window, utc_date
from .common import Listing
from .run import Builders

logger = logging.getLogger("sources.connecteam")

UNAVAILABILITY_COLUMNS: dict[str, str] = {
    "scheduler_id": "bigint!",
    "id": TEXT,
    "user_id": BIGINT,
    "is_all_day": BOOL,
    "unavailability_date": TEXT,
    "start_time": TEXT,
    "end_time": TEXT,
    "timezone": TEXT,
    "note": TEXT,
    "content_hash": TEXT,
    "is_deleted": BOOL,
    "deleted_at": BIGINT,
}


def _record_id(record: dict[str, Any]) -> str:
    """An unavailability's ``id`` as its row keeps it (:func:`unavailability_row`)."""
    return str(record.get("id"))


def unavailability_row(scheduler_id: int, record: dict[str, Any]) -> dict[str, Any]:
    """One ``SchedulerUnavailabilityResponse`` of a scheduler as a warehouse row (with a digest
    of the record in ``content_hash``)."""
    return {
        "scheduler_id": scheduler_id,
        "id": _record_id(record),
        "user_id": record.get("userId"),
        "is_all_day": record.get("isAllDay"),
        "unavailability_date": record.get("unavailabilityDate"),
        "start_time": record.get("startTime"),
        "end_time": record.get("endTime"),
        "timezone": record.get("timezone"),
        "note": record.get("note"),
        "content_hash": content_hash(record),
        "is_deleted": False,
        "deleted_at": None,
    }


def scheduler_unavailabilities(
    client: ConnecteamClient,
    scheduler_list: Listing,
    days_back: int,
    days_ahead: int,
    backfill_start: int | None,
) -> DltResource:
    """``scheduler_unavailabilities``: per scheduler, the unavailabilities in the shifts' window
    ``[now - days_back, now + days_ahead)`` (the first run of a scheduler from
    ``backfill_start`` when earlier), merged on ``scheduler_id`` + ``id``; only new or changed
    ones load. A live loaded one whose day lies inside the window that the provider no longer
    returns is marked deleted. A scheduler that vanished since it was listed (404) is skipped."""

    @dlt.resource(
        name="scheduler_unavailabilities",
        primary_key=("scheduler_id", "id"),
        write_disposition="merge",
        columns=hints(UNAVAILABILITY_COLUMNS),
    )
    def _unavailabilities() -> Iterator[pa.Table]:
        state = dlt.current.resource_state()
        pulled: dict[str, bool] = state.setdefault("backfilled", {})
        now = client.now
        arrow = ArrowRows(
            "scheduler_unavailabilities", UNAVAILABILITY_COLUMNS, client.stats.untyped_values
        )
        # up to max_in_flight schedulers at once; each scheduler's state key is its own
        tasks = [
            partial(unavailability_tables, client, scheduler, arrow, pulled, now,
                    days_back, days_ahead, backfill_start)
            for scheduler in scheduler_list()[0]
        ]  # fmt: skip
        yield from in_parallel(tasks, client.max_in_flight)

    return _unavailabilities


def unavailability_tables(
    client: ConnecteamClient,
    scheduler: dict[str, Any],
    arrow: ArrowRows,
    pulled: dict[str, bool],
    now: float,
    days_back: int,
    days_ahead: int,
    backfill_start: int | None,
) -> Iterator[pa.Table]:
    """One scheduler's unavailabilities in the shifts' window at ``now`` (epoch seconds, UTC;
    :func:`~..windows.shift_window`, from ``backfill_start`` unless ``pulled`` holds the
    scheduler), as Arrow tables: the new or changed ones, then tombstones of the live loaded
    ones whose day lies inside the window that the provider no longer returns, once the listing
    is consistent (``GET /scheduler/v1/schedulers/{schedulerId}/unavailabilities``). The
    scheduler is then noted in ``pulled``; one that vanished since it was listed (404) is
    skipped.
    """
    sid = int(scheduler["schedulerId"])
    first = not pulled.get(str(sid))
    window = shift_window(now, days_back, days_ahead, backfill_start if first else None)
    days = (utc_date(window.start).isoformat(), utc_date(window.end).isoformat())
    diff = WindowDiff.of_loaded(
        "scheduler_unavailabilities", "scheduler_id", sid,
        inside=("unavailability_date > %s and unavailability_date < %s", days),
        overlap=("unavailability_date >= %s and unavailability_date <= %s", days),
    )  # fmt: skip
    progress = Progress(f"scheduler_unavailabilities[{sid}]", logger=logger)
    params = {"startTime": window.start, "endTime": window.end}
    endpoint, parent = STREAMS["scheduler_unavailabilities"], {"schedulerId": sid}
    check = PageCheck()
    try:
        pages = checked_pages(client.pages(endpoint, params, parent), check)
        yield from arrow.batches(
            diff.changed(unavailability_row(sid, r) for r in page) for page in progress.track(pages)
        )
        again = partial(client.pages, endpoint, params, parent)
        quarantine = client.stats.quarantine
        consistent = deletions_allowed(quarantine, "scheduler_unavailabilities", check.consistent)
        gone = diff.vanished(consistent, second_pass(again, _record_id))
    except ParentNotFoundError as exc:
        client.skip_parent(exc, "scheduler_unavailabilities")
        return
    if gone:
        yield arrow.to_arrow(diff.tombstones(gone, set(), int(now)))
    progress.done(f" in {window}: {len(gone)} deleted")
    pulled[str(sid)] = True


RESOURCES: Builders = {
    "scheduler_unavailabilities": lambda run: scheduler_unavailabilities(
        run.client, run.schedulers, *run.windows.shifts
    ),
}
"""This domain's streams and how each one's resource is built for a run."""
