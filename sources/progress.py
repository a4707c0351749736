"""Progress of long work (pages fetched, rows, events folded), for a terminal or for logs.

Sources and jobs count with :class:`Progress`. By default it logs one plain line per stream
every few seconds and one when the stream ends, which is what a scheduler's log or a CI job
wants. A command running on a terminal installs a live display instead with
:func:`progress_sink` (``flows.cli`` draws it with rich); the closing line is logged either way.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

ProgressSink = Callable[[str, int, int, bool], None]
"""Called as ``sink(stream, pages, items, finished)`` after every counted page."""

T = TypeVar("T")

_sinks: list[ProgressSink] = []
_lock = threading.Lock()


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
        stream: Name shown, e.g. ``shifts[9001]`` or ``webhook events``.
        unit: What the items are, e.g. ``rows`` or ``events``.
        every: Seconds between log lines when no sink is installed.
        logger: Where the lines go (default ``sources``).
    """

    def __init__(
        self,
        stream: str,
        unit: str = "rows",
        every: float = 2.0,
        logger: logging.Logger | None = None,
    ) -> None:
        self.stream = stream
        self.unit = unit
        self.every = every
        self.pages = 0
        self.rows = 0
        self.logger = logger or logging.getLogger("sources")
        self._last = time.monotonic()

    def page(self, items: int) -> None:
        """Count one page (or batch) of ``items``."""
        self.pages += 1
        self.rows += items
        sinks = list(_sinks)
        for sink in sinks:
            sink(self.stream, self.pages, self.rows, False)
        if not sinks and time.monotonic() - self._last >= self.every:
            self._last = time.monotonic()
            self.logger.info(
                "%s: %d %s in %d pages so far", self.stream, self.rows, self.unit, self.pages
            )

    def done(self, note: str = "") -> None:
        """Report the stream's totals (always logged, and sent to the sinks)."""
        for sink in list(_sinks):
            sink(self.stream, self.pages, self.rows, True)
        self.logger.info(
            "%s: %d %s in %d pages%s", self.stream, self.rows, self.unit, self.pages, note
        )

    def track(self, pages: Iterable[list[T]]) -> Iterator[list[T]]:
        """Pass pages through, counting them."""
        for page in pages:
            self.page(len(page))
            yield page

    def describe(self) -> dict[str, Any]:
        """``{"stream", "pages", "rows"}`` so far."""
        return {"stream": self.stream, "pages": self.pages, "rows": self.rows}
