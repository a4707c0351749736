"""Bounds on the receiver's connections, so idle or slow senders cannot block the real ones.

Every connection holds a file descriptor. Unbounded, 20,000 connections that send nothing reach
the process's open-file limit; every new connection then fails to be accepted (asyncio logging a
traceback per attempt) and valid deliveries time out. So, served by uvicorn's h11 protocol with
:func:`bounded_protocol`:

* at most ``max_connections`` are open at once (setting ``WEBHOOKS__MAX_CONNECTIONS``; default
  :func:`default_max_connections` of the open-file limit, which :func:`raise_file_limit`
  raises to the hard limit at start); one past it is answered ``503`` with ``Retry-After`` and
  closed at once, before it is read;
* a connection that has not sent a complete request head within :data:`HEAD_TIMEOUT` seconds of
  opening (or of its previous answer plus uvicorn's keep-alive timeout) is closed;
* what happened to connections is counted (:class:`ConnectionEvents`): logged once a minute as
  counts, never a traceback per connection, and added to the inbox's refusal counts that
  ``wfm-sync status`` reads.

The answer deadline's part, reading a body within it, is the route's
(:meth:`receiver.app._Routes.receive`).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from inbox.refusals import CONNECTION

logger = logging.getLogger("receiver.connections")

HEAD_TIMEOUT = 5.0
"""Seconds a connection may take to send a complete request head."""
KEEP_ALIVE = 5.0
"""Seconds an idle keep-alive connection stays open after its answer (uvicorn's
``timeout_keep_alive``)."""
RESERVED_FILES = 64
"""Open files kept for the inbox, its WAL, logs and the writer's connections."""
LOG_EVERY = 60.0
"""Seconds between two log lines of connection counts."""

OVER_CAP = f"{CONNECTION}over the cap"
IDLE = f"{CONNECTION}no request head in time"
DISCONNECTED = f"{CONNECTION}sender left before its body ended"
SLOW_BODY = f"{CONNECTION}body not received within the deadline"
ACCEPT_FAILED = f"{CONNECTION}not accepted, out of file descriptors"
KINDS = (OVER_CAP, IDLE, DISCONNECTED, SLOW_BODY, ACCEPT_FAILED)
"""What :class:`ConnectionEvents` counts (fixed phrases: the inbox's refusal reasons)."""


def file_limit() -> int:
    """This process's soft open-file limit (``RLIMIT_NOFILE``)."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def raise_file_limit() -> int:
    """Raise this process's soft open-file limit (``RLIMIT_NOFILE``) to its hard limit and
    return the soft limit now in force (unchanged where the system refuses)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def default_max_connections(file_limit: int) -> int:
    """Connections the receiver keeps open at most for an open-file limit of ``file_limit``:
    nine tenths of what :data:`RESERVED_FILES` leaves, at least 16."""
    return max(16, (file_limit - RESERVED_FILES) * 9 // 10)


class ConnectionEvents:
    """Counts of what happened to connections (:data:`KINDS`), logged once a minute and handed
    to ``record`` (the inbox's refusal counter: ``record(reason, epoch seconds)``).

    Thread-safe; :meth:`note` never logs by itself, so a flood costs one line a minute.
    """

    def __init__(self, record: Callable[[str, float], None] | None = None) -> None:
        self.record = record
        self._pending: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._logged = time.monotonic()

    def note(self, kind: str) -> None:
        """Count one ``kind`` (:data:`KINDS`)."""
        now = time.time()
        with self._lock:
            self._pending[kind] += 1
        if self.record is not None:
            self.record(kind, now)
        self.log_due()

    def log_due(self, force: bool = False) -> None:
        """Log the counts since the last line, when :data:`LOG_EVERY` seconds have passed."""
        with self._lock:
            if not self._pending or not (force or time.monotonic() - self._logged >= LOG_EVERY):
                return
            pending, self._pending = self._pending, Counter()
            self._logged = time.monotonic()
        logger.warning(
            "connections in the last minute: %s",
            ", ".join(f"{count} {kind}" for kind, count in sorted(pending.items())),
        )


class ConnectionBounds:
    """What :func:`bounded_protocol` enforces.

    Attributes:
        max_connections: Connections open at once at most.
        head_timeout: Seconds to send a complete request head (:data:`HEAD_TIMEOUT`).
        keep_alive: uvicorn's keep-alive timeout (:data:`KEEP_ALIVE`).
        retry_after: The ``Retry-After`` of the 503 past the cap, in seconds.
        events: The counts.
        open: The connections open now (uvicorn's own set, once the first one opened).
    """

    def __init__(
        self, max_connections: int, retry_after: int, events: ConnectionEvents,
        head_timeout: float = HEAD_TIMEOUT, keep_alive: float = KEEP_ALIVE,
    ) -> None:  # fmt: skip
        self.max_connections = max_connections
        self.head_timeout = head_timeout
        self.keep_alive = keep_alive
        self.retry_after = retry_after
        self.events = events
        self.open: set[Any] = set()
        body = b'{"detail":"the receiver has too many connections open; retry"}'
        self.over_cap_answer = (
            b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
            b"retry-after: %d\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s"
            % (retry_after, len(body), body)
        )

    @property
    def at_cap(self) -> bool:
        """Whether as many connections are open as the cap allows."""
        return len(self.open) >= self.max_connections

    def accept_errors(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's exception handler: a failed ``accept`` (out of file descriptors)
        is counted, not logged with its traceback; anything else goes to the default."""
        if str(context.get("message", "")).startswith("socket.accept() out of system resource"):
            self.events.note(ACCEPT_FAILED)
            return
        loop.default_exception_handler(context)


def bounded_protocol(bounds: ConnectionBounds) -> type[H11Protocol]:
    """uvicorn's h11 protocol with ``bounds`` enforced (see the module doc); pass it as
    ``uvicorn.Config(http=...)``."""

    class BoundedH11Protocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            bounds.open = self.connections
            if len(self.connections) > bounds.max_connections:
                bounds.events.note(OVER_CAP)
                transport.write(bounds.over_cap_answer)
                transport.close()
                return
            self._await_head(bounds.head_timeout)

        def handle_events(self) -> None:
            cycle = self.cycle
            super().handle_events()
            if self.cycle is not cycle:  # a complete request head arrived
                self._stop_head_timer()

        def on_response_complete(self) -> None:
            cycle = self.cycle
            super().on_response_complete()  # may start a pipelined request at once
            if self.cycle is cycle and not self.transport.is_closing():
                self._await_head(bounds.keep_alive + bounds.head_timeout)

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_head_timer()
            super().connection_lost(exc)

        def _await_head(self, seconds: float) -> None:
            self._stop_head_timer()
            self._head_timer = self.loop.call_later(seconds, self._head_overdue)

        def _stop_head_timer(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_overdue(self) -> None:
            self._head_timer = None
            if not self.transport.is_closing():
                bounds.events.note(IDLE)
                self.transport.close()

    return BoundedH11Protocol
