"""Deliveries the receiver refused, counted by reason in the inbox (no body kept), and when the
receiver first saw the credentials of a rotation.

``inbox_refusals``
    One row per reason and minute: ``reason`` (a fixed phrase such as ``wrong token`` or
    ``bad signature: signature does not match``, never text taken from the request),
    ``minute`` (epoch seconds UTC, the start of the minute), ``refusal_count``, ``first_seen``
    and ``last_seen`` (epoch seconds UTC). Reasons starting with :data:`WOULD_REFUSE` are
    deliveries stored all the same (signature checking in report mode). Rows older than
    :data:`RETENTION_SECONDS` are deleted by the receiver.
``inbox_credentials_seen``
    ``fingerprint`` (:func:`fingerprint` of a token and signing secret: a digest, never the
    secret) and ``first_seen`` (epoch seconds UTC): when a receiver on this inbox first accepted a
    delivery made with those credentials. Shared by every receiver on one inbox.

The receiver counts in memory (:class:`RefusalRecorder`, a lock and a dict per refusal) and a
thread of its own writes the counts every second on its own connection, so a flood of bad
requests costs the real events no inbox transaction. :func:`refusal_summary` reads them for
``wfm-sync status``.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from .tables import events_table

logger = logging.getLogger("sources.webhooks.refusals")

WOULD_REFUSE = "would-refuse: "
"""Prefix of the reasons counted in report mode: the delivery was stored."""
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

credentials_seen_table = sa.Table(
    "inbox_credentials_seen",
    metadata,
    sa.Column("fingerprint", sa.String(64), primary_key=True),
    sa.Column("first_seen", sa.Float, nullable=False),
)


def create_tables(engine: Engine) -> None:
    """Create the two tables when missing (safe when several receivers start at once)."""
    metadata.create_all(engine)


def fingerprint(token: str | None, signing_secret: str | None) -> str:
    """A digest naming one token and signing secret pair (64 hex characters; SHA-256 of both, so
    the inbox never holds either)."""
    text = f"wfm-sync credentials\0{token or ''}\0{signing_secret or ''}"
    return hashlib.sha256(text.encode()).hexdigest()


def _insert(engine: Engine, table: sa.Table) -> Any:
    if engine.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


@dataclass
class _Tally:
    count: int
    first: float
    last: float


@dataclass
class RefusalRecorder:
    """Counts refusals in memory and writes them to the inbox every :data:`FLUSH_SECONDS` (and
    at :meth:`close`) from a thread of its own; records when the watched credentials were
    first seen.

    Args:
        engine: The inbox's engine (its own connections are taken from its pool).
        watch: The :func:`fingerprint` of the current credentials while a previous token or
            secret is still configured, else ``None``.
        interval: Seconds between writes.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: The tables could not be created or read (at start).
    """

    engine: Engine
    watch: str | None = None
    interval: float = FLUSH_SECONDS
    _pending: dict[tuple[str, int], _Tally] = field(default_factory=dict, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    _first_seen: float | None = field(default=None, init=False)
    _seen_unrecorded: float | None = field(default=None, init=False)
    _pruned_at: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        create_tables(self.engine)
        if self.watch is not None:
            self._first_seen = first_seen(self.engine, self.watch)

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

    def saw_watched(self, at: float) -> None:
        """The watched credentials were accepted at ``at`` (epoch seconds): remembered now,
        written to the inbox by the next flush; no I/O."""
        with self._lock:
            if self._first_seen is None or at < self._first_seen:
                self._first_seen = at
                self._seen_unrecorded = at

    @property
    def first_seen(self) -> float | None:
        """When the watched credentials were first accepted by a receiver on this inbox (epoch
        seconds), ``None`` when not yet (as of the last flush, for other receivers)."""
        return self._first_seen

    def flush(self) -> None:
        """Write the counts kept in memory in one transaction (added to what is stored); on
        failure they are kept for the next flush and the error logged, never raised."""
        with self._lock:
            pending, self._pending = self._pending, {}
            seen = self._seen_unrecorded
        try:
            self._write(pending, seen)
        except Exception:  # counted again at the next flush
            logger.exception("could not write %d refusal count(s) to the inbox", len(pending))
            with self._lock:
                for key, tally in pending.items():
                    mine = self._pending.setdefault(key, _Tally(0, tally.first, tally.last))
                    mine.count += tally.count
                    mine.first, mine.last = min(mine.first, tally.first), max(mine.last, tally.last)
            return
        with self._lock:
            if self._seen_unrecorded == seen:
                self._seen_unrecorded = None

    def close(self) -> None:
        """Stop the thread (waits up to 30 s) and write what is left."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.flush()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.flush()

    def _write(self, pending: dict[tuple[str, int], _Tally], seen: float | None) -> None:
        now = time.time()
        prune = now - self._pruned_at > 3600
        if not pending and seen is None and not prune and (
            self.watch is None or self._first_seen is not None
        ):  # fmt: skip
            return
        t = refusals_table.c
        with self.engine.begin() as conn:
            if pending:
                rows = [
                    {"reason": reason, "minute": minute, "refusal_count": tally.count,
                     "first_seen": tally.first, "last_seen": tally.last}
                    for (reason, minute), tally in sorted(pending.items())
                ]  # fmt: skip
                insert = _insert(self.engine, refusals_table)
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
            if self.watch is not None and seen is not None:
                insert = _insert(self.engine, credentials_seen_table)
                conn.execute(
                    insert.on_conflict_do_nothing(index_elements=["fingerprint"]),
                    {"fingerprint": self.watch, "first_seen": seen},
                )
        if prune:
            self._pruned_at = now
        if self.watch is not None and (seen is not None or self._first_seen is None):
            stored = first_seen(self.engine, self.watch)  # perhaps earlier, by another receiver
            with self._lock:
                if stored is not None and (self._first_seen is None or stored < self._first_seen):
                    self._first_seen = stored


def first_seen(engine: Engine, watched: str) -> float | None:
    """When credentials of fingerprint ``watched`` were first accepted (epoch seconds), or
    ``None``."""
    c = credentials_seen_table.c
    with engine.connect() as conn:
        value = conn.execute(sa.select(c.first_seen).where(c.fingerprint == watched)).scalar()
    return None if value is None else float(value)


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
        were stored): what was lost since the last stored event."""
        return {reason: n for reason, n in self.since_last_stored.items()
                if not reason.startswith(WOULD_REFUSE)}  # fmt: skip

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
