"""Time windows the windowed streams re-pull every run, and the one comparison of a re-pulled
window with the rows already loaded (:class:`WindowDiff`): shifts per scheduler, time activities
and timesheets per time clock. Times are epoch seconds (UTC); dates are UTC calendar dates.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from .listing import Reread, confirmed_gone
from .loaded import query_loaded, tombstones

DAY_SECONDS = 86_400


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


def day_start(day: date) -> int:
    """Epoch seconds of ``day``'s midnight (UTC)."""
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


def trailing_dates(now: float, days_back: int, backfill_start: int | None) -> tuple[date, date]:
    """``(first, last)`` UTC dates a run re-pulls: ``days_back`` days before today (or from
    ``backfill_start``, epoch seconds, when earlier) through today."""
    last = utc_date(now)
    first = last - timedelta(days=days_back)
    if backfill_start is not None:
        first = min(first, utc_date(backfill_start))
    return first, last


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


class WindowDiff:
    """One parent's re-pulled window compared with its loaded rows, one batch at a time.

    Only the ids seen so far are kept between batches, so a window of any size is diffed in
    memory proportional to one batch plus its ids. Rows are warehouse rows (their ``id`` and
    ``content_hash`` set by the stream's row mapping).

    Args:
        table: Destination table.
        parent_column: Column holding the parent id (``scheduler_id``, ``time_clock_id``).
        parent_id: The parent.
        live: Live loaded rows of the parent overlapping the window:
            ``{id: (content_hash, lies_inside_the_window)}`` (see :meth:`of_loaded`).
    """

    def __init__(
        self, table: str, parent_column: str, parent_id: int, live: dict[str, tuple[str, bool]]
    ) -> None:
        self.table, self.parent_column, self.parent_id = table, parent_column, parent_id
        self.live = live
        self.seen: set[str] = set()

    @classmethod
    def of_loaded(
        cls,
        table: str,
        parent_column: str,
        parent_id: int,
        inside: tuple[str, tuple[Any, ...]],
        overlap: tuple[str, tuple[Any, ...]] = ("true", ()),
    ) -> WindowDiff:
        """The diff of the parent's live loaded rows (not ``is_deleted``) within ``overlap``.

        Args:
            inside: SQL condition and parameters of a row lying inside the window, where a
                loaded row that the provider no longer returns counts as deleted.
            overlap: SQL condition and parameters of a loaded row the window covers at all.
        """
        _, rows = query_loaded(
            table,
            f"select id, content_hash, {inside[0]} from {{table}} "
            f"where {parent_column} = %s and not coalesce(is_deleted, false) and {overlap[0]}",
            *inside[1],
            parent_id,
            *overlap[1],
        )
        return cls(
            table, parent_column, parent_id, {str(r[0]): (str(r[1]), bool(r[2])) for r in rows}
        )

    def changed(self, rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rows that are new or differ from the loaded ones; a row already seen (returned
        by two overlapping windows) is left out."""
        out = []
        for row in rows:
            if row["id"] in self.seen:
                continue
            self.seen.add(row["id"])
            known = self.live.get(row["id"])
            if known is None or known[0] != row["content_hash"]:
                out.append(row)
        return out

    def vanished(self, consistent: bool | None = True, reread: Reread | None = None) -> set[str]:
        """Ids of live rows inside the window that no batch has returned, when the listing was
        consistent (:func:`~sources.connecteam.listing.confirmed_gone`; ``reread``: the ids
        of a second pass, for a listing of unknown consistency); else none."""
        gone = {i for i, (_, inside) in self.live.items() if inside and i not in self.seen}
        stream = f"{self.table}[{self.parent_id}]"
        return confirmed_gone(stream, gone, self.seen, consistent, reread)

    def tombstones(self, ids: set[str], json_columns: set[str], now: int) -> list[dict[str, Any]]:
        """The loaded rows of ``ids``, marked ``is_deleted`` at ``now`` (epoch seconds, UTC)."""
        key = f"{self.parent_column} = %s"
        return tombstones(self.table, key, (self.parent_id,), ids, json_columns, now)
