"""The project's one answer to "is this failure transient?", and the provider's outage clock.

Both retry layers ask it: the client's retry of one HTTP call (:meth:`.pacing.Pacing.call`: a
status in :data:`RETRYABLE_STATUS`, a timeout, a dropped connection) and the jobs' retry of a
whole step (``flows.nightly.sync_streams``, ``flows.fold.fold_inbox``: :func:`is_transient`).

The two layers do not multiply. A provider that answers nothing but 429 and 5xx (or nothing
at all) is timed by one clock per base URL (:class:`Outage`): past ``max_outage`` seconds
without a single other answer, the client stops retrying and raises
:class:`~.errors.ProviderUnavailableError`, which no step retries. So a dead provider holds a
nightly at most ``timeout + max_outage + backoff_max + timeout`` seconds (30 + 600 + 60 + 30 =
720 s at the defaults: the first attempt that hangs, the outage, one last back-off and its
attempt), however many streams and step retries are left (``docs/configuration.md``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import httpx
from dlt.common.configuration.exceptions import ConfigurationException

from core.errors import cause_chain

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
"""HTTP statuses that may heal on a retry: the provider's throttling and its server errors."""

TRANSIENT_NAMES = frozenset(
    {
        "OperationalError",
        "IOException",
        "DestinationTransientException",
        "DatabaseTransientException",
    }
)
"""Exception class names of the warehouse and inbox drivers that a retry may heal: a database
that was unreachable or locked for a moment (psycopg2's and SQLAlchemy's ``OperationalError``,
DuckDB's ``IOException`` for a file another process holds, dlt's transient destination errors)."""


def is_transient_status(status: int | None) -> bool:
    """Whether an answer with this HTTP status (``None``: no answer arrived) may heal on a
    retry: :data:`RETRYABLE_STATUS`, any other 5xx, or no answer."""
    return status is None or status in RETRYABLE_STATUS or status >= 500


def is_transient(exc: BaseException) -> bool:
    """Whether a failed call or step is worth retrying, from ``exc`` and its causes.

    An exception that knows says so with a ``transient`` attribute (the client's errors, the
    warehouse's and the inbox's): any cause that says ``False`` makes the whole failure
    permanent (a setting, refused credentials or parameters, a spent rate-limit budget, a
    provider down past its outage budget); else any that says ``True`` makes it transient.
    Otherwise a dlt configuration error is permanent, and an answer that never arrived
    (``OSError``, ``httpx.TransportError``) or a driver's error of :data:`TRANSIENT_NAMES` is
    transient. Anything else is a data error (a value that fails the same way again): not
    transient.
    """
    chain = cause_chain(exc)
    verdicts = [getattr(e, "transient", None) for e in chain]
    if False in verdicts:
        return False
    if True in verdicts:
        return True
    if any(isinstance(e, ConfigurationException) for e in chain):
        return False  # a setting missing or malformed: retrying cannot fix it
    return any(
        isinstance(e, OSError | httpx.TransportError) or type(e).__name__ in TRANSIENT_NAMES
        for e in chain
    )


@dataclass
class Outage:
    """Per base URL, when the provider's current run of transient failures began (UTC epoch
    seconds): set by the first 429, 5xx, timeout or dropped connection after an answer,
    cleared by any other answer. A failure more than ``gap`` seconds after the previous one
    starts a new run (a process that syncs again later is not held to an old outage)."""

    gap: float = 120.0
    _since: dict[str, tuple[float, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def failed(self, base_url: str, at: float | None = None) -> float:
        """Record a transient failure of ``base_url``; return the seconds its outage lasts."""
        now = time.time() if at is None else at
        with self._lock:
            began, last = self._since.get(base_url, (now, now))
            if now - last > self.gap:
                began = now
            self._since[base_url] = (began, now)
        return now - began

    def answered(self, base_url: str) -> None:
        """Record an answer that is not transient: the outage of ``base_url`` is over."""
        if base_url in self._since:
            with self._lock:
                self._since.pop(base_url, None)

    def lasted(self, base_url: str, at: float | None = None) -> float:
        """Seconds the outage of ``base_url`` has lasted (0: none)."""
        now = time.time() if at is None else at
        with self._lock:
            began, last = self._since.get(base_url, (now, now))
        return 0.0 if now - last > self.gap else now - began


OUTAGES = Outage()
"""This process's outage clock (one per process, like :data:`.pacing.ANSWERED_HOSTS`: every
client of one base URL, and every step retry of a run, share it)."""
