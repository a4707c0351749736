"""Deliveries the receiver refused, counted by reason in the inbox (no body kept), written with
the times of a rotation (:mod:`inbox.rotation`).

``inbox_refusals``
    One row per reason and minute: ``reason`` (a fixed phrase such as ``wrong token`` or
    ``bad signature: signature does not match``, never text taken from the request),
    ``minute`` (epoch seconds UTC, the start of the minute), ``refusal_count``, ``first_seen``
    and ``last_seen`` (epoch seconds UTC). Reasons starting with :data:`WOULD_REFUSE` are
    deliveries stored all the same (signature checking in report mode). Rows older than
    :data:`RETENTION_SECONDS` are deleted by the receiver.
``inbox_rotations``
    When the new credentials of a rotation were first accepted and the previous ones last
    accepted (:mod:`inbox.rotation`). Shared by every receiver on one inbox.

The receiver counts in memory (:class:`RefusalRecorder`, a lock and a dict per refusal) and a
thread of its own writes the counts (and the rotation's times) every second on its own
connection, so a flood of bad requests costs the real events no inbox transaction.
:func:`refusal_summary` reads them for ``wfm-sync status``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from .rotation import Rotation
from .rotation import metadata as rotation_metadata
from .tables import dialect_insert, events_table

logger = logging.getLogger("inbox.refusals")

WOULD_REFUSE = "would-refuse: "
"""Prefix of the reasons counted in report mode: the delivery was stored."""
CONNECTION = "connection: "
"""Prefix of what happened to connections (:mod:`receiver.connections`: past the cap, no
request head, a body too slow, a sender gone): shown with the refusals, but no token or
signature problem, and the provider retries such a delivery."""
RETENTION_SECONDS = 30 * 86_400
"""Refusal counts older than this (30 days) are deleted."""
FLUSH_SECONDS = 1.0
"""How often the counts kept in memory are written to the inbox."""

metadata = sa.MetaData()

refusals_table = sa.Table(
    "inbox_refusals",
    metadata,
    sa.Column("reason", sa.String(200), primary_key=True),
    sa.Column("minute", sa.BigInteger, primary_key=True),
    sa.Column("refusal_count", sa.BigInteger, nullable=False),
    sa.Column("first_seen", sa.Float, nullable=False),
    sa.Column("last_seen", sa.Float, nullable=False),
)
sa.Index("ix_inbox_refusals_last_seen", refusals_table.c.last_seen)


def create_tables(engine: Engine) -> None:
    """Create ``inbox_refusals`` and ``inbox_rotations`` when missing (safe when several receivers
    start at once)."""
    metadata.create_all(engine)
    rotation_metadata.create_all(engine)


@dataclass
class _Tally:
    count: int
    first: float
    last: float


@dataclass
class RefusalRecorder:
    """Counts refusals in memory and writes them to the inbox every :data:`FLUSH_SECONDS` (and
    at :meth:`close`) from a thread of its own, with the times of ``rotation``.

    Args:
        engine: The inbox's engine (its own connections are taken from its pool).
        rotation: The rotation under way (a previous token or secret configured), else ``None``;
            its times are written and re-read at every flush.
        interval: Seconds between writes.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: The tables could not be created or read (at start).
    """

    engine: Engine
    rotation: Rotation | None = None
    interval: float = FLUSH_SECONDS
    _pending: dict[tuple[str, int], _Tally] = field(default_factory=dict, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    _pruned_at: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        create_tables(self.engine)
        if self.rotation is not None:
            with self.engine.begin() as conn:
                committed = self.rotation.sync(conn)
            committed()

    def start(self) -> RefusalRecorder:
        """Start the writing thread; returns ``self``."""
        self._thread = threading.Thread(target=self._run, name="refusal-recorder", daemon=True)
        self._thread.start()
        return self

    def count(self, reason: str, at: float) -> None:
        """Count one refusal of ``reason`` at ``at`` (epoch seconds); no I/O."""
        key = (reason, int(at // 60) * 60)
        with self._lock:
            tally = self._pending.get(key)
            if tally is None:
                self._pending[key] = _Tally(1, at, at)
            else:
                tally.count += 1
                tally.first = min(tally.first, at)
                tally.last = max(tally.last, at)

    def flush(self) -> None:
        """Write the counts kept in memory in one transaction (added to what is stored); on
        failure they are kept for the next flush and the error logged, never raised."""
        with self._lock:
            pending, self._pending = self._pending, {}
        try:
            self._write(pending)
        except Exception:  # counted again at the next flush
            logger.exception("could not write %d refusal count(s) to the inbox", len(pending))
            with self._lock:
                for key, tally in pending.items():
                    mine = self._pending.setdefault(key, _Tally(0, tally.first, tally.last))
                    mine.count += tally.count
                    mine.first, mine.last = min(mine.first, tally.first), max(mine.last, tally.last)
            return

    def close(self) -> None:
        """Stop the thread (waits up to 30 s) and write what is left."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.flush()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.flush()

    def _write(self, pending: dict[tuple[str, int], _Tally]) -> None:
        now = time.time()
        prune = now - self._pruned_at > 3600
        if not pending and not prune and self.rotation is None:
            return
        committed = None
        t = refusals_table.c
        with self.engine.begin() as conn:
            if pending:
                rows = [
                    {"reason": reason, "minute": minute, "refusal_count": tally.count,
                     "first_seen": tally.first, "last_seen": tally.last}
                    for (reason, minute), tally in sorted(pending.items())
                ]  # fmt: skip
                insert = dialect_insert(self.engine, refusals_table)
                new = insert.excluded
                conn.execute(
                    insert.on_conflict_do_update(
                        index_elements=["reason", "minute"],
                        set_={
                            "refusal_count": t.refusal_count + new.refusal_count,
                            "first_seen": sa.case(
                                (new.first_seen < t.first_seen, new.first_seen), else_=t.first_seen
                            ),
                            "last_seen": sa.case(
                                (new.last_seen > t.last_seen, new.last_seen), else_=t.last_seen
                            ),
                        },
                    ),
                    rows,
                )
            if prune:
                conn.execute(sa.delete(refusals_table).where(t.minute < now - RETENTION_SECONDS))
            if self.rotation is not None:
                committed = self.rotation.sync(conn)
        if prune:
            self._pruned_at = now
        if committed is not None:
            committed()


@dataclass(frozen=True)
class RefusalSummary:
    """Refusals as ``wfm-sync status`` shows them.

    Attributes:
        last_hour: ``{reason: count}`` of the minutes that started in the last hour.
        since_last_stored: ``{reason: count}`` of the minutes holding a refusal later than the
            last stored event (all minutes when the inbox holds none).
        last_stored_at: ``received_at`` of the last stored event (epoch seconds), or ``None``.
        last_refused_at: The latest refusal of ``since_last_stored`` (epoch seconds), or ``None``.
    """

    last_hour: dict[str, int]
    since_last_stored: dict[str, int]
    last_stored_at: float | None
    last_refused_at: float | None

    def refused(self) -> dict[str, int]:
        """``since_last_stored`` without the reasons of :data:`WOULD_REFUSE` (those deliveries
        were stored) and :data:`CONNECTION` (retried by the provider): what was lost since the
        last stored event."""
        return {reason: n for reason, n in self.since_last_stored.items()
                if not reason.startswith((WOULD_REFUSE, CONNECTION))}  # fmt: skip

    def problem(self) -> str | None:
        """One line naming the refusals since the last stored event, or ``None`` when none."""
        refused = self.refused()
        if not refused:
            return None
        return (
            f"{sum(refused.values())} webhook deliveries refused since the last stored event "
            f"({_iso(self.last_stored_at) or 'none yet'}): "
            + ", ".join(f"{reason} {n}" for reason, n in refused.items())
            + "; the provider drops them after 3 tries: check WEBHOOKS__TOKEN and "
            "WEBHOOKS__SIGNING_SECRET against the subscription (docs/webhooks.md#refusals)"
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: the counts, the times as ISO 8601 UTC (or ``None``), and ``refused``
        (:meth:`refused`)."""
        return {
            "last_hour": self.last_hour,
            "since_last_stored": self.since_last_stored,
            "refused": self.refused(),
            "last_stored_at": _iso(self.last_stored_at),
            "last_refused_at": _iso(self.last_refused_at),
        }


def _iso(epoch: float | None) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def refusal_summary(engine: Engine, now: float, window: float = 3600.0) -> RefusalSummary:
    """Read the refusal counts of an inbox (empty when it has no ``inbox_refusals`` table).

    Args:
        engine: The inbox's engine.
        now: The current time, epoch seconds.
        window: Seconds back ``last_hour`` reaches.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: The inbox could not be read.
    """
    if not sa.inspect(engine).has_table(refusals_table.name):
        return RefusalSummary({}, {}, None, None)
    t = refusals_table.c
    e = events_table.c
    with engine.connect() as conn:
        last_stored: Any = conn.execute(
            sa.select(e.received_at).order_by(e.inbox_id.desc()).limit(1)
        ).scalar()
        hour: Sequence[Any] = conn.execute(
            sa.select(t.reason, sa.func.sum(t.refusal_count))
            .where(t.minute >= now - window)
            .group_by(t.reason)
        ).all()
        since_query = sa.select(t.reason, sa.func.sum(t.refusal_count), sa.func.max(t.last_seen))
        if last_stored is not None:
            since_query = since_query.where(t.last_seen > last_stored)
        since: Sequence[Any] = conn.execute(since_query.group_by(t.reason)).all()
    return RefusalSummary(
        last_hour={str(reason): int(n) for reason, n in sorted(hour)},
        since_last_stored={str(reason): int(n) for reason, n, _ in sorted(since)},
        last_stored_at=None if last_stored is None else float(last_stored),
        last_refused_at=max((float(last) for _, _, last in since), default=None),
    )
