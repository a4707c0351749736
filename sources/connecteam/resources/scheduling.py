"""Scheduling resources: ``schedulers`` (``GET /scheduler/v1/schedulers``, merged on
``scheduler_id``) and ``shifts`` (``GET /scheduler/v1/schedulers/{schedulerId}/shifts``, merged
on ``scheduler_id`` + ``id``)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import BIGINT, BOOL, JSON, TEXT, ArrowRows, hints
from ..client import ConnecteamClient
from ..contract import deletions_allowed
from ..errors import ConnecteamConfigError, ParentNotFoundError
from ..fanout import in_parallel
from ..listing import PageCheck, content_hash, second_pass
from ..registry import SHIFT_COVERAGE_TABLE, SHIFTS_V2_PATH, STREAMS, Stream
from ..windows import Window, WindowDiff, shift_window
from .common import DELETION_MARK, Listing, diff_listing, listing_tables, versions
from .run import Builders

logger = logging.getLogger("sources.connecteam")

SHIFT_JSON_COLUMNS = (
    "assigned_user_ids", "location_data", "notes", "statuses", "breaks", "shift_details",
    "custom_fields",
)  # fmt: skip
SHIFT_COLUMNS = {
    **dict.fromkeys(SHIFT_JSON_COLUMNS, JSON),
    "scheduler_id": "bigint!",
    "user_id": BIGINT,
    "is_deleted": BOOL,
    "deleted_at": BIGINT,
    "content_hash": TEXT,
}


SHIFT_COVERAGE_HINTS = dlt.mark.make_hints(
    table_name=SHIFT_COVERAGE_TABLE,
    primary_key="coverage_key",
    write_disposition="merge",
)
"""``shift_coverage``: one row per scheduler and pulled window: ``window_from``, ``window_to``
and when that pull began (``pulled_at``), epoch seconds (UTC), keyed by ``coverage_key``
(``<schedulerId>:<window_from>:<window_to>``; a window pulled again keeps its latest pull). The
models trust the API for a shift as of the latest pull whose window held its start; a shift
webhook event newer than that (or about a shift no pull held) is applied over the API's row."""


def shifts_endpoint(api_version: int) -> Stream:
    """The shift listing of ``api_version``: ``1``, the ``shifts`` stream's endpoint; ``2``,
    :data:`~..registry.SHIFTS_V2_PATH` with the same page maximum, sort and scope.

    Raises:
        ConnecteamConfigError: Any other version (the message names the setting).
    """
    if api_version == 1:
        return STREAMS["shifts"]
    if api_version == 2:
        return dataclasses.replace(STREAMS["shifts"], path=SHIFTS_V2_PATH)
    raise ConnecteamConfigError(
        f"shifts_api_version = {api_version!r}: choose 1 (a row per assigned user) or 2 (a row "
        "per shift, for accounts on V2 shift webhooks); set SOURCES__CONNECTEAM__SHIFTS_API_VERSION"
    )


def schedulers(client: ConnecteamClient, scheduler_list: Listing) -> DltResource:
    """``schedulers``: every scheduler, merged on ``scheduler_id``; only changed ones are loaded
    (the endpoint has no timestamps, so a digest of each record is kept in the resource state);
    one the listing no longer holds is marked deleted."""

    @dlt.resource(
        name="schedulers",
        primary_key="scheduler_id",
        write_disposition="merge",
        columns=hints(DELETION_MARK),
    )
    def _schedulers() -> Iterator[pa.Table]:
        listed, complete = scheduler_list()
        changed, gone = diff_listing(
            client, "schedulers", "scheduler_id", listed, complete, "schedulerId"
        )
        yield from listing_tables(client, "schedulers", DELETION_MARK, changed, gone)
        logger.info(
            "schedulers: %d listed, %d changed, %d deleted", len(listed), len(changed), len(gone)
        )

    return _schedulers


def shifts(
    client: ConnecteamClient,
    scheduler_list: Listing,
    days_back: int,
    days_ahead: int,
    backfill_start: int | None,
    api_version: int = 1,
) -> DltResource:
    """``shifts``: one row per V1 shift row (per assigned user; open shifts with no user), merged
    on ``scheduler_id`` + ``id``; with ``api_version`` 2, one row per shift with every assigned
    user (``GET /scheduler/v2/schedulers/{schedulerId}/shifts``, same parameters and paging;
    the staging model makes one row per user of it).

    The window is ``[now - days_back, now + days_ahead)`` per scheduler (the first run of a
    scheduler from ``backfill_start`` when earlier). When the provider's answers carry
    ``paging.total``, a later run first asks for the rows updated since its last pass (sorted by
    ``updated_at``, newest first, stopping at the first older row: one request when little
    changed), and accepts that as complete only if ``paging.total`` equals the rows already known
    plus the new ones. Otherwise (no total, a deletion, an old row entering the window) it
    re-pulls the whole window sorted by creation, so paging is stable. Rows are loaded only when
    new or changed (a digest of the provider's record is kept in ``content_hash``). A live row
    lying wholly inside a re-pulled window that the provider no longer returns is loaded again
    with ``is_deleted = true`` and ``deleted_at`` (epoch seconds, UTC) — never kept as live,
    never dropped — but only after a consistent listing of the window
    (:func:`~..listing.confirmed_gone`: ``paging.total`` unchanged and equal to the rows read,
    or, without a total, a second pass returning the same rows; otherwise a warning, and a later
    run marks it). Every row loaded (new, changed or marked deleted) is also appended to
    ``shift_versions`` with the run's time (:func:`~.common.versions`): the shift history. Each
    scheduler's pulled window is recorded in ``shift_coverage`` (:data:`SHIFT_COVERAGE_HINTS`).

    Raises:
        ConnecteamConfigError: ``api_version`` is neither 1 nor 2 (:func:`shifts_endpoint`).
    """
    endpoint = shifts_endpoint(api_version)

    @dlt.resource(
        name="shifts",
        parallelized=True,
        primary_key=("scheduler_id", "id"),
        write_disposition="merge",
        columns=hints(SHIFT_COLUMNS),
    )
    def _shifts() -> Iterator[Any]:
        now = int(client.now)
        run = ShiftRun.of_state(client, days_back, days_ahead, backfill_start)
        run.endpoint = endpoint
        for batch in shift_tables(run, scheduler_list):
            yield batch
            yield versions(batch, "shifts", ("scheduler_id", "id"), SHIFT_COLUMNS, now)
        if run.coverage:
            yield dlt.mark.with_hints(run.coverage, SHIFT_COVERAGE_HINTS, create_table_variant=True)

    return _shifts


@dataclass
class ShiftRun:
    """One run of ``shifts``: its settings, its clock and the resource state it keeps per
    scheduler (keys: the scheduler id as text).

    Attributes:
        client: The client every request goes through.
        days_back: Days of the window before ``now``.
        days_ahead: Days of the window after ``now``.
        backfill_start: Where a scheduler's first window starts instead, epoch seconds (UTC).
        now: The run's clock, epoch seconds (UTC).
        arrow: The Arrow batches of ``shifts`` rows.
        pulled: Whether a scheduler's window was pulled before (``backfilled`` in the state).
        newest: The newest ``updateTime`` a scheduler's last pass saw, epoch seconds
            (``newest_update``).
        totals: Whether the provider's answers carried ``paging.total`` in a scheduler's last
            full pass (``has_total``): without it the changes pass cannot prove completeness,
            so it is not even tried.
        coverage: The ``shift_coverage`` rows of this run (:data:`SHIFT_COVERAGE_HINTS`).
        endpoint: The listing read (``shifts``, or its V2 path: :func:`shifts_endpoint`).
    """

    client: ConnecteamClient
    days_back: int
    days_ahead: int
    backfill_start: int | None
    now: float
    arrow: ArrowRows
    pulled: dict[str, bool] = field(default_factory=dict)
    newest: dict[str, int] = field(default_factory=dict)
    totals: dict[str, bool] = field(default_factory=dict)
    coverage: list[dict[str, Any]] = field(default_factory=list)
    endpoint: Stream = STREAMS["shifts"]

    @classmethod
    def of_state(
        cls,
        client: ConnecteamClient,
        days_back: int,
        days_ahead: int,
        backfill_start: int | None,
    ) -> ShiftRun:
        """A run over the running resource's state (``dlt.current.resource_state()``), at the
        clock's now (:func:`core.clock.now`)."""
        state = dlt.current.resource_state()
        pulled = state.setdefault("backfilled", {})
        newest = state.setdefault("newest_update", {})
        totals = state.setdefault("has_total", {})
        now = client.now
        arrow = ArrowRows("shifts", SHIFT_COLUMNS, client.stats.untyped_values)
        return cls(
            client, days_back, days_ahead, backfill_start, now, arrow, pulled, newest, totals
        )

    def record(self, sid: int, window: Window, seen_newest: int, since: int | None) -> None:
        """Note a scheduler's finished pass of ``window``: pulled, its newest ``updateTime``
        (the larger of ``seen_newest`` and ``since``), and its ``shift_coverage`` row."""
        self.pulled[str(sid)] = True
        self.newest[str(sid)] = max(seen_newest, since or 0)
        self.coverage.append({"coverage_key": f"{sid}:{window.start}:{window.end}",
                              "scheduler_id": sid, "window_from": window.start,
                              "window_to": window.end, "pulled_at": int(self.now)})  # fmt: skip


def shift_tables(run: ShiftRun, scheduler_list: Listing) -> Iterator[pa.Table]:
    """The Arrow tables of every listed scheduler's shifts (:func:`scheduler_shifts`), up to
    ``max_in_flight`` schedulers at once; each scheduler's state keys are its own."""
    tasks = [partial(scheduler_shifts, run, scheduler) for scheduler in scheduler_list()[0]]
    return in_parallel(tasks, run.client.max_in_flight)


def scheduler_shifts(run: ShiftRun, scheduler: dict[str, Any]) -> Iterator[pa.Table]:
    """One scheduler's shifts in its window (:func:`~..windows.shift_window`; from
    ``backfill_start`` on its first run): the changes pass when its last full pass had
    ``paging.total`` (:func:`changes_pass`), else or when that cannot prove itself complete the
    full pass (:func:`full_pass`); then the tombstones of rows gone from the window, and the
    pass noted in ``run`` (:meth:`ShiftRun.record`). A scheduler that vanished since it was
    listed (``GET /scheduler/v1/schedulers/{schedulerId}/shifts`` answered 404) is skipped
    (:meth:`~..paging.Paging.skip_parent`).

    Yields:
        Arrow tables of new or changed rows, then of rows marked deleted.
    """
    sid = int(scheduler["schedulerId"])
    try:
        first = not run.pulled.get(str(sid))
        start = run.backfill_start if first else None
        window = shift_window(run.now, run.days_back, run.days_ahead, start)
        progress = Progress(f"shifts[{sid}]", logger=logger)
        diff = _loaded_shifts(sid, window)
        since = run.newest.get(str(sid))
        cheap = (
            None
            if first or since is None or not run.totals.get(str(sid))
            else changes_pass(run.client, sid, window, since, diff, progress, run.endpoint)
        )
        if cheap is not None:
            changed, seen_newest = cheap
            if changed:
                yield run.arrow.to_arrow(changed)
            loaded, vanished = len(changed), set[str]()
            note = "changes only (paging.total matched)"
        else:
            loaded, vanished, seen_newest = yield from full_pass(
                run.client, sid, window, diff, progress, run.totals, run.arrow, run.endpoint
            )
            note = "full window"
        progress.done(f" in {window} ({note}): {loaded} new or changed, {len(vanished)} deleted")
        if vanished:
            yield run.arrow.to_arrow(
                diff.tombstones(vanished, set(SHIFT_JSON_COLUMNS), int(run.now))
            )
        run.record(sid, window, seen_newest, since)
    except ParentNotFoundError as exc:
        run.client.skip_parent(exc, "shifts")


def full_pass(
    client: ConnecteamClient,
    sid: int,
    window: Window,
    diff: WindowDiff,
    progress: Progress,
    totals: dict[str, bool],
    arrow: ArrowRows,
    endpoint: Stream = STREAMS["shifts"],
) -> Generator[pa.Table, None, tuple[int, set[str], int]]:
    """Scheduler ``sid``'s whole ``window`` (``startTime``/``endTime``, epoch seconds) sorted by
    creation (stable paging), diffed page by page with ``diff``
    (``GET /scheduler/v1/schedulers/{schedulerId}/shifts``).

    Yields Arrow tables of new or changed rows (:meth:`ArrowRows.batches`), keeping only the
    ids seen between pages; records in ``totals`` whether the answers carried
    ``paging.total``. Returns ``(rows yielded, vanished ids, newest updateTime)``: the vanished
    ids are the live rows inside the window that it no longer holds, once the listing is
    consistent (:meth:`~..windows.WindowDiff.vanished`, with a second pass when it has no
    total). ``endpoint``: the V1 listing or its V2 path (:func:`shifts_endpoint`).

    Raises:
        ParentNotFoundError: The scheduler answered 404.
    """
    params = {"startTime": window.start, "endTime": window.end,
              "sort": "created_at", "order": "asc"}  # fmt: skip
    loaded = newest_seen = 0
    listing = partial(client.pages, endpoint, params, {"schedulerId": sid})
    check = PageCheck()

    def changed_pages() -> Iterator[list[dict[str, Any]]]:
        nonlocal loaded, newest_seen
        for page, total in listing():
            check.add(len(page), total)
            progress.page(len(page))
            totals[str(sid)] = total is not None
            newest_seen = max([newest_seen, *(_updated(r) for r in page)])
            changed = diff.changed(shift_row(sid, r) for r in page)
            loaded += len(changed)
            yield changed

    yield from arrow.batches(changed_pages())
    consistent = deletions_allowed(client.stats.quarantine, "shifts", check.consistent)
    gone = diff.vanished(consistent, second_pass(listing, lambda r: str(r["id"])))
    return loaded, gone, newest_seen


def changes_pass(
    client: ConnecteamClient,
    sid: int,
    window: Window,
    since: int,
    diff: WindowDiff,
    progress: Progress,
    endpoint: Stream = STREAMS["shifts"],
) -> tuple[list[dict[str, Any]], int] | None:
    """Scheduler ``sid``'s rows of ``window`` updated since ``since`` (epoch seconds), newest
    first (``sort=updated_at``, ``order=desc``), stopping at the first older row; no page past
    that one is asked for (``GET /scheduler/v1/schedulers/{schedulerId}/shifts``).

    Returns:
        ``(rows new or changed against diff, newest updateTime)``, or ``None`` (a full window
        pass is needed) unless the answer carries ``paging.total`` and it equals the rows
        already known (``diff.live``) plus the new ones, which rules out deletions and old
        rows that entered the window since the last run.

    Raises:
        ParentNotFoundError: The scheduler answered 404.
    """
    params = {"startTime": window.start, "endTime": window.end,
              "sort": "updated_at", "order": "desc"}  # fmt: skip
    records: list[dict[str, Any]] = []
    total: int | None = None
    listing = client.pages(endpoint, params, {"schedulerId": sid}, ahead=False)
    for page, page_total in listing:
        progress.page(len(page))
        total = page_total if total is None else total
        records.extend(r for r in page if _updated(r) >= since)
        if page_total is None or any(_updated(r) < since for r in page):
            break
    if total is None:
        return None
    known = set(diff.live) | {str(r["id"]) for r in records}
    if total != len(known):
        return None
    changed = diff.changed(shift_row(sid, r) for r in records)
    return changed, max((_updated(r) for r in records), default=since)


def _updated(record: dict[str, Any]) -> int:
    """A shift row's last change (``updateTime``, else ``creationTime``), epoch seconds."""
    value = record.get("updateTime") or record.get("creationTime")
    return int(value) if isinstance(value, int | float) and abs(value) < 2**63 else 0


def _loaded_shifts(scheduler_id: int, window: Window) -> WindowDiff:
    """The diff of one scheduler's window with its live loaded shift rows overlapping it (a row
    lies inside when it starts and ends within the window)."""
    return WindowDiff.of_loaded(
        "shifts",
        "scheduler_id",
        scheduler_id,
        inside=("start_time >= %s and end_time <= %s", (window.start, window.end)),
        overlap=("end_time > %s and start_time < %s", (window.start, window.end)),
    )


def shift_row(scheduler_id: int, record: dict[str, Any]) -> dict[str, Any]:
    """One V1 shift record as a warehouse row: the provider's fields plus the row's keys.

    V1 answers hold one record per assigned user (ids ``<shiftId>:<slot uuid>``) and one record
    per open shift (no assignee). ``shift_id`` is the base shift id, ``user_id`` the assignee.
    """
    assigned = record.get("assignedUserIds") or []
    row = dict(record)
    row["scheduler_id"] = scheduler_id
    row["shift_id"] = str(record["id"]).split(":", 1)[0]
    row["user_id"] = assigned[0] if len(assigned) == 1 else None
    row["content_hash"] = content_hash(record)
    row["is_deleted"] = False
    row["deleted_at"] = None
    return row


RESOURCES: Builders = {
    "schedulers": lambda run: schedulers(run.client, run.schedulers),
    "shifts": lambda run: shifts(
        run.client, run.schedulers, *run.windows.shifts, run.windows.shifts_api_version
    ),
}
"""This domain's streams and how each one's resource is built for a run."""
