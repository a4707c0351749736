"""Helpers of the ``connecteam`` source: shift windows, change detection, and progress lines."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

import orjson

from .settings import DAY_SECONDS

logger = logging.getLogger("sources.connecteam")
T = TypeVar("T")


@dataclass(frozen=True)
class Window:
    """A span of time ``[start, end)`` in UTC epoch seconds."""

    start: int
    end: int

    def __str__(self) -> str:
        fmt = "%Y-%m-%d %H:%M"
        a = datetime.fromtimestamp(self.start, UTC).strftime(fmt)
        b = datetime.fromtimestamp(self.end, UTC).strftime(fmt)
        return f"{a}..{b} UTC"


def once(function: Callable[[], T]) -> Callable[[], T]:
    """``function``'s result, computed by the first caller and shared with every later one.

    Unlike :func:`functools.cache`, callers arriving while the first call runs (parallel
    resources sharing one listing) wait for it instead of asking the provider again. A call that
    raises leaves nothing cached.
    """
    lock = threading.Lock()
    done: list[T] = []

    @functools.wraps(function)
    def shared() -> T:
        with lock:
            if not done:
                done.append(function())
            return done[0]

    return shared


def complete_listing(
    pages: Iterable[tuple[list[dict[str, Any]], int | None]],
    on_page: Callable[[int], None] | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    """Every record of a listing read to its end, and whether it is complete.

    Args:
        pages: ``(records, paging.total or None)`` per page, as
            :meth:`~sources.connecteam.client.ConnecteamClient.pages` yields them.
        on_page: Called with each page's record count (progress).

    Returns:
        ``(records, complete)``: ``complete`` is false when an answer's ``paging.total``
        disagrees with the records read (a record added or removed while paging shifts the
        offsets), so the caller must not conclude that an unseen record is gone. Without a
        total, a listing read to its last (short) page is complete.
    """
    records: list[dict[str, Any]] = []
    totals: set[int] = set()
    for page, total in pages:
        records.extend(page)
        if total is not None:
            totals.add(total)
        if on_page is not None:
            on_page(len(page))
    return records, not totals or totals == {len(records)}


def live(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with the sync's deletion mark cleared: ``is_deleted`` false, ``deleted_at``
    null (a record loaded again after being marked deleted is live again)."""
    return {**record, "is_deleted": False, "deleted_at": None}


def shift_window(
    now: float, days_back: int, days_ahead: int, backfill_start: int | None = None
) -> Window:
    """The window of shift start times one run re-pulls.

    Args:
        now: Current time, epoch seconds.
        days_back: Days before ``now`` (floored to the UTC hour, so runs within an hour agree).
        days_ahead: Days after ``now`` (ceiled to the UTC hour).
        backfill_start: Epoch seconds; when given and earlier, the window starts there instead.

    Returns:
        The window.
    """
    start = int(now - days_back * DAY_SECONDS) // 3600 * 3600
    end = -(-int(now + days_ahead * DAY_SECONDS) // 3600) * 3600
    if backfill_start is not None:
        start = min(start, int(backfill_start))
    return Window(start, end)


def date_windows(first: date, last: date, max_days: int) -> list[tuple[date, date]]:
    """Split the inclusive range ``first..last`` into consecutive windows of at most
    ``max_days`` days each (inclusive), oldest first; empty when ``last < first``.

    A 92-day range with ``max_days=92`` is one window; 93 days are two (92 + 1).
    """
    windows = []
    start = first
    while start <= last:
        end = min(last, start + timedelta(days=max_days - 1))
        windows.append((start, end))
        start = end + timedelta(days=1)
    return windows


def utc_date(epoch: float) -> date:
    """The UTC calendar date of epoch seconds."""
    return datetime.fromtimestamp(epoch, UTC).date()


def to_epoch(value: int | float | str | date | None) -> int | None:
    """Epoch seconds (UTC) from an int, an ISO date ``YYYY-MM-DD`` or an ISO datetime.

    Raises:
        ValueError: The value is not a date, datetime or number.
    """
    if value is None or value == "":
        return None
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        text = str(value).strip()
        if text.lstrip("-").isdigit():
            return int(text)
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(
                f"shifts_backfill_start must be epoch seconds or an ISO date like 2024-01-31, "
                f"got {value!r}"
            ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp())


def content_hash(record: dict[str, Any]) -> str:
    """A stable digest of one provider record (key order does not matter; integers beyond 64
    bits included)."""
    try:
        text = orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson refuses integers beyond 64 bits; the standard library does not
        text = json.dumps(record, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.blake2b(text, digest_size=16).hexdigest()


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


class WindowDiff:
    """Compares one re-pulled window with the warehouse, one page at a time.

    Only the ids seen so far are kept between pages, so a window of any size is diffed in
    memory proportional to one page plus its ids.

    Args:
        scheduler_id: The scheduler the records belong to.
        live: Rows live in the warehouse overlapping the window:
            ``{id: (content_hash, fully_inside_window)}``.
    """

    def __init__(self, scheduler_id: int, live: dict[str, tuple[str, bool]]) -> None:
        self.scheduler_id = scheduler_id
        self.live = live
        self.seen: set[str] = set()

    def changed(self, records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """The warehouse rows of ``records`` that are new or differ from the warehouse."""
        changed = []
        for record in records:
            row = shift_row(self.scheduler_id, record)
            self.seen.add(row["id"])
            known = self.live.get(row["id"])
            if known is None or known[0] != row["content_hash"]:
                changed.append(row)
        return changed

    def vanished(self) -> set[str]:
        """Ids of live rows wholly inside the window that no page has returned."""
        return {sid for sid, (_, inside) in self.live.items() if inside and sid not in self.seen}


def diff_shifts(
    scheduler_id: int,
    records: Iterable[dict[str, Any]],
    live: dict[str, tuple[str, bool]],
) -> tuple[list[dict[str, Any]], set[str]]:
    """Split one re-pulled window into changed rows and vanished ids (see :class:`WindowDiff`).

    Returns:
        ``(changed, vanished)``: rows to load (new or different from the warehouse), and ids of
        live rows fully inside the window that the provider no longer returns.
    """
    diff = WindowDiff(scheduler_id, live)
    return diff.changed(records), diff.vanished()
