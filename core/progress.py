"""Counting long work (pages fetched, rows, events folded) and reporting it as log lines.

Sources and jobs count with :class:`Progress`. It logs one plain line per stream every few
seconds and one when the stream ends, which is what a scheduler's log or a CI job wants. This
module draws nothing: a display subscribes with :func:`progress_sink` (a callback per counted page,
in place of the periodic lines) and draws what it gets; the command line's live display on a
terminal is ``flows/cli/live.py``. The closing line is logged either way.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

ProgressSink = Callable[[str, str, bool], None]
"""Called as ``sink(stream, counts, finished)`` after every counted page; ``counts`` is the
text to show, e.g. ``"7 pages, 3,000 rows"``."""

T = TypeVar("T")

_sinks: list[ProgressSink] = []
_lock = threading.Lock()
_label: contextvars.ContextVar[str] = contextvars.ContextVar("progress_label", default="")


@contextmanager
def account_label(account: str) -> Iterator[None]:
    """Within the block (and the threads that copy its context: dlt's extract pool, the
    source's fan-out), every :class:`Progress` made names its stream ``<account>: <stream>``,
    so the syncs of several accounts side by side count apart."""
    token = _label.set(f"{account}: ")
    try:
        yield
    finally:
        _label.reset(token)


@contextmanager
def progress_sink(sink: ProgressSink) -> Iterator[None]:
    """Send every :class:`Progress` update to ``sink`` (instead of periodic log lines) while
    the block runs."""
    with _lock:
        _sinks.append(sink)
    try:
        yield
    finally:
        with _lock:
            _sinks.remove(sink)


class Progress:
    """Counts pages and items of one stream and reports them.

    Args:
        stream: Name shown, e.g. ``shifts[9001]`` or ``webhook events`` (after the account's
            label, :func:`account_label`, when one is set).
        unit: What the items are, e.g. ``rows`` or ``events``.
        pages_unit: What a counted page is, e.g. ``pages``, ``batches`` or ``requests``.
        every: Seconds between log lines when no sink is installed.
        logger: Where the lines go (default ``sources``).
    """

    def __init__(
        self,
        stream: str,
        unit: str = "rows",
        pages_unit: str = "pages",
        every: float = 2.0,
        logger: logging.Logger | None = None,
    ) -> None:
        self.stream = _label.get() + stream
        self.unit = unit
        self.pages_unit = pages_unit
        self.every = every
        self.pages = 0
        self.rows = 0
        self.total: int | None = None
        """Items the work will count in all, when known (shown as ``120 of 443``)."""
        self.logger = logger or logging.getLogger("sources")
        self._last = time.monotonic()

    def page(self, items: int) -> None:
        """Count one page (or batch) of ``items``."""
        self.pages += 1
        self.rows += items
        sinks = list(_sinks)
        for sink in sinks:
            sink(self.stream, self.counts(), False)
        if not sinks and time.monotonic() - self._last >= self.every:
            self._last = time.monotonic()
            self.logger.info("%s: %s so far", self.stream, self.counts())

    def done(self, note: str = "") -> None:
        """Report the stream's totals (always logged, and sent to the sinks)."""
        for sink in list(_sinks):
            sink(self.stream, self.counts(), True)
        if self.unit == self.pages_unit:  # "dbt build: 47 nodes", not "47 nodes in 47 nodes"
            self.logger.info("%s: %d %s%s", self.stream, self.rows, self.unit, note)
            return
        self.logger.info(
            "%s: %d %s in %d %s%s", self.stream, self.rows, self.unit, self.pages,
            self.pages_unit, note,
        )  # fmt: skip

    def counts(self) -> str:
        """``"7 pages, 3,000 rows"`` (one figure when pages and items are the same thing:
        ``"120 of 443 nodes"`` when the total is known)."""
        if self.unit == self.pages_unit:
            of = f" of {self.total:,}" if self.total else ""
            return f"{self.rows:,}{of} {self.unit}"
        return f"{self.pages:,} {self.pages_unit}, {self.rows:,} {self.unit}"

    def track(self, pages: Iterable[list[T]]) -> Iterator[list[T]]:
        """Pass pages through, counting them."""
        for page in pages:
            self.page(len(page))
            yield page
