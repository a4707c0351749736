"""The durable webhook inbox: SQLAlchemy Core over SQLite by default, PostgreSQL unchanged.

:class:`Inbox` opens the database and creates its tables (:mod:`inbox.tables`),
stores what the receiver accepted or refused in one durable transaction per group
(:mod:`inbox.writes` keys and inserts the events), and hands the fold its unfolded
rows, marks them folded and prunes folded rows older than the retention.

SQLite runs in WAL mode with ``synchronous=FULL``: a commit is on disk before the receiver answers.
Each write transaction takes the write lock first (``BEGIN IMMEDIATE``) and waits for a busy
writer up to the busy timeout (30 s, or the URL's ``?timeout=<seconds>``), or less when the write
is given a shorter ``timeout``; on PostgreSQL such a write runs with that ``statement_timeout``
and ``lock_timeout``. How the database is opened (the receiver's writes on an engine of their
own, connection and statement timeouts, parameters hidden from messages):
:mod:`inbox.engines`.

Quarantined bodies are kept within a byte budget (:mod:`inbox.quarantine_budget`).

Rows stored before ``inbox_events`` had its newer columns keep their keys (the ``requestId``
alone), and a re-delivery of such an event is recognised by that key (``Envelope.legacy_key``).
"""

from __future__ import annotations

import errno
import logging
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from .batches import DEFAULT_BATCH_BYTES, DEFAULT_QUARANTINE_ROWS, keyset_batches
from .defaults import DEFAULT_INBOX_URL
from .engines import begin_write, open_engines
from .quarantine_budget import counters, keep_within_budget, recount
from .tables import (
    add_missing_columns,
    add_missing_counters,
    counters_table,
    events_table,
    metadata,
    quarantine_table,
)
from .writes import (
    ReceivedEvent,
    RefusedBody,
    StoredEvent,
    caused_by_body,
    quarantine_row,
    store_events,
)

__all__ = [  # the inbox and what its callers hand it or get back
    "DEFAULT_INBOX_URL",
    "Inbox",
    "ReceivedEvent",
    "RefusedBody",
    "StoredEvent",
    "WriteAbandonedError",
    "caused_by_body",
    "waited_past_timeout",
]

logger = logging.getLogger("inbox")

FREE_SPACE_FLOOR = 64 * 1024 * 1024
"""Bytes that must stay free beside an SQLite inbox for it to count as able to store events:
below it, ``/healthz`` and ``wfm-sync status`` say the inbox is full (a one-row probe still
fits in SQLite's write-ahead log when a delivery no longer does)."""

DEADLOCK_ATTEMPTS = 3
"""Tries of one write transaction that PostgreSQL aborts as a deadlock or serialization victim."""


class WriteAbandonedError(Exception):
    """A write's ``claim`` refused it just before the commit: the transaction was rolled back and
    nothing of it is stored."""


class Inbox:
    """The inbox database.

    Args:
        url: SQLAlchemy URL: ``sqlite:///data/inbox.sqlite3`` (default) or
            ``postgresql://user:password@host/db`` (driven by psycopg2, the driver dlt's
            postgres destination uses too, unless the URL names another). SQLite folders are
            created as needed.
        quarantine_max_bytes: Most bytes of quarantined bodies to keep (the oldest beyond are
            dropped and counted); ``None`` keeps every body.
        statement_timeout: Seconds any one PostgreSQL statement may run (``statement_timeout``
            of every connection); ``None`` sets none. Ignored on SQLite.

    Raises:
        sqlalchemy.exc.ArgumentError: The URL is not a database URL.
        sqlalchemy.exc.OperationalError: The database could not be reached or its tables made.
    """

    def __init__(
        self,
        url: str = DEFAULT_INBOX_URL,
        *,
        quarantine_max_bytes: int | None = None,
        statement_timeout: float | None = None,
    ) -> None:
        self.quarantine_max_bytes = quarantine_max_bytes
        self._engines = open_engines(url, statement_timeout)
        self.url = self._engines.url
        self.engine: Engine = self._engines.shared
        metadata.create_all(self.engine)
        add_missing_columns(self.engine)
        add_missing_counters(self.engine)

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    def describe(self) -> str:
        """The URL without its password."""
        return self.url.render_as_string(hide_password=True)

    def close(self) -> None:
        """Dispose of the connection pools."""
        self._engines.dispose()

    # -- receiving -------------------------------------------------------------------------------

    def insert_events(self, events: Sequence[ReceivedEvent]) -> list[StoredEvent]:
        """Insert events in one durable transaction (see :meth:`store`).

        Returns:
            One :class:`StoredEvent` per event, in order.
        """
        return self.store(events, ())

    def insert_quarantine(self, refused: Sequence[RefusedBody]) -> None:
        """Keep refused bodies, in one durable transaction."""
        self.store((), refused)

    def store(
        self,
        events: Sequence[ReceivedEvent],
        refused: Sequence[RefusedBody],
        *,
        timeout: float | None = None,
        claim: Callable[[], bool] | None = None,
    ) -> list[StoredEvent]:
        """Store events and refused bodies in one durable transaction.

        An event whose key is new is stored under it. One whose key is stored with the same
        body (or whose ``legacy_key`` is) is a re-delivery: nothing is written. One whose key
        is stored with a different body is stored under ``<key>#<16 hex of its body>`` with
        ``conflict_of`` = the key, and logged (:func:`inbox.writes.store_events`).
        Quarantined bodies are kept within ``quarantine_max_bytes``.

        Args:
            events: Events to store.
            refused: Refused bodies to quarantine.
            timeout: Seconds the transaction may wait for a lock (SQLite's busy timeout, at
                most the inbox's own) or for any one statement (PostgreSQL); ``None``: the
                inbox's defaults.
            claim: Called just before the commit; when it returns false the transaction is
                rolled back and :class:`WriteAbandonedError` raised.

        Returns:
            One :class:`StoredEvent` per event, in order.

        Raises:
            sqlalchemy.exc.OperationalError: The database is unreachable, locked past the
                timeout, or a statement ran past it (transient: retry). A transaction
                PostgreSQL aborts to break a deadlock is run again first
                (:data:`DEADLOCK_ATTEMPTS`).
            WriteAbandonedError: ``claim`` returned false; nothing was stored.
            KeyCollisionError: A body collides with another under both its keys (not
                storable: refuse the body).
            InboxRaceError: Other writers kept taking the batch's keys (transient: retry).
            Exception: What the driver raised for a value it cannot store
                (:func:`~inbox.writes.caused_by_body` tells which).
        """
        if not events and not refused:
            return []
        for attempt in range(1, DEADLOCK_ATTEMPTS + 1):
            try:
                with self._engines.writes.begin() as conn:
                    begin_write(self._engines, conn, timeout)
                    results = self._write(conn, events, refused)
                    if claim is not None and not claim():
                        raise WriteAbandonedError("the write was abandoned before its commit")
                break
            except sa.exc.OperationalError as exc:  # PostgreSQL chose this one as a victim
                if attempt == DEADLOCK_ATTEMPTS or not _lost_a_deadlock(exc):
                    raise
                logger.info("inbox: transaction lost a deadlock (attempt %d); retrying", attempt)
        _log_key_conflicts(results)
        return results

    def _write(
        self, conn: sa.Connection, events: Sequence[ReceivedEvent], refused: Sequence[RefusedBody]
    ) -> list[StoredEvent]:
        """The statements of :meth:`store`, inside ``conn``'s transaction."""
        if refused:
            conn.execute(quarantine_table.insert(), [quarantine_row(r) for r in refused])
        results = store_events(conn, events) if events else []
        if refused:
            added = sum(len(r.body) for r in refused)
            keep_within_budget(conn, added, self.quarantine_max_bytes)
        return results

    def space_problem(self) -> str | None:
        """Why an SQLite inbox cannot count on storing an event now: less than
        :data:`FREE_SPACE_FLOOR` free on its disk; ``None`` otherwise (and for PostgreSQL,
        whose server reports a full disk on the probe's write)."""
        database = self.url.database if self.dialect == "sqlite" else None
        if not database or database == ":memory:":
            return None
        try:
            free = shutil.disk_usage(Path(database).absolute().parent).free
        except OSError:
            return None
        if free >= FREE_SPACE_FLOOR:
            return None
        return (
            f"{free // 1024 // 1024} MiB free beside the inbox {database} (below the "
            f"{FREE_SPACE_FLOOR // 1024 // 1024} MiB floor): free space"
        )

    def probe(self, timeout: float) -> None:
        """A real, cheap write: take the lock the receiver's writes take (SQLite's write lock;
        on PostgreSQL ``ROW EXCLUSIVE`` on both inbox tables), update the ``health_probe``
        counter to now and commit, waiting at most ``timeout`` seconds for a lock; first, the
        free space beside an SQLite inbox (:meth:`space_problem`).

        Raises:
            OSError: ENOSPC, less than :data:`FREE_SPACE_FLOOR` free beside an SQLite inbox.
            sqlalchemy.exc.OperationalError: The inbox is unreachable, locked past ``timeout``,
                read-only or full.
        """
        problem = self.space_problem()
        if problem is not None:
            raise OSError(errno.ENOSPC, problem)
        with self._engines.writes.begin() as conn:
            begin_write(self._engines, conn, timeout)
            if self.dialect == "postgresql":
                conn.exec_driver_sql(
                    "LOCK TABLE inbox_events, inbox_quarantine IN ROW EXCLUSIVE MODE"
                )
            conn.execute(
                sa.update(counters_table)
                .where(counters_table.c.name == "health_probe")
                .values(value=int(time.time()))
            )

    # -- folding ---------------------------------------------------------------------------------

    def unfolded_events(
        self, batch_size: int, upto_id: int | None = None, max_bytes: int = DEFAULT_BATCH_BYTES
    ) -> Iterator[list[tuple[Any, ...]]]:
        """Batches of rows not yet folded, in ``inbox_id`` order, each at most ``batch_size``
        rows and ``max_bytes`` bytes of bodies (one larger body is a batch of its own):
        :func:`inbox.batches.keyset_batches`.

        Each row: ``(inbox_id, event_key, event_type, family, is_known_type, event_timestamp,
        activity_type, company, webhook_version, received_at, body, request_id,
        is_event_time_implausible, conflict_of, account)``; the last four are ``None`` in rows
        stored before those columns existed (``account`` is also ``None`` for the ``default``
        account's events).

        Args:
            batch_size: Most rows per batch.
            upto_id: Read no row with a larger ``inbox_id`` (a snapshot bound, so a fold ends
                while events keep arriving); ``None``: the largest unfolded id at the first read.
            max_bytes: Most bytes of bodies per batch (default 32 MiB).
        """
        c = events_table.c
        columns = [c.inbox_id, c.event_key, c.event_type, c.family, c.is_known_type,
                   c.event_timestamp, c.activity_type, c.company, c.webhook_version,
                   c.received_at, c.body, c.request_id, c.is_event_time_implausible,
                   c.conflict_of, c.account]  # fmt: skip
        return keyset_batches(self.engine, events_table, columns, batch_size, max_bytes, upto_id)

    def unfolded_quarantine(
        self,
        batch_size: int = DEFAULT_QUARANTINE_ROWS,
        max_bytes: int = DEFAULT_BATCH_BYTES,
        upto_id: int | None = None,
    ) -> Iterator[list[tuple[Any, ...]]]:
        """Batches of quarantined bodies not yet folded, in ``quarantine_id`` order, each at most
        ``batch_size`` rows and ``max_bytes`` bytes of bodies, up to ``upto_id`` (``None``: the
        largest unfolded id at the first read): ``(quarantine_id, received_at, status_code,
        reason, content_type, body_bytes, is_truncated, body)``."""
        c = quarantine_table.c
        columns = [c.quarantine_id, c.received_at, c.status_code, c.reason, c.content_type,
                   c.body_bytes, c.is_truncated, c.body]  # fmt: skip
        return keyset_batches(
            self.engine, quarantine_table, columns, batch_size, max_bytes, upto_id
        )

    def max_unfolded_id(self) -> int | None:
        """The largest ``inbox_id`` not yet folded (the snapshot bound of one fold)."""
        c = events_table.c
        with self.engine.connect() as conn:
            value = conn.execute(
                sa.select(sa.func.max(c.inbox_id)).where(c.folded_at.is_(None))
            ).scalar()
        return int(value) if value is not None else None

    def mark_folded(
        self, inbox_ids: Sequence[int], quarantine_ids: Sequence[int] = (), *, chunk: int = 10_000
    ) -> None:
        """Record that these rows are in the warehouse.

        One short transaction per ``chunk`` ids, so receivers writing at the same time wait
        milliseconds, not seconds. Marking need not be atomic: a row left unmarked is read again
        by the next fold and skipped by the insert-only load.
        """
        now = time.time()
        for table, column, ids in (
            (events_table, events_table.c.inbox_id, inbox_ids),
            (quarantine_table, quarantine_table.c.quarantine_id, quarantine_ids),
        ):
            for start in range(0, len(ids), chunk):
                part = list(ids[start : start + chunk])
                with self.engine.begin() as conn:
                    conn.execute(sa.update(table).where(column.in_(part)).values(folded_at=now))

    def prune(self, retention_seconds: float, *, chunk: int = 10_000) -> int:
        """Delete rows folded longer ago than ``retention_seconds``; returns rows deleted."""
        cutoff = time.time() - retention_seconds
        deleted = 0
        for table, key in (
            (events_table, events_table.c.inbox_id),
            (quarantine_table, quarantine_table.c.quarantine_id),
        ):
            while True:
                doomed = sa.select(key).where(table.c.folded_at < cutoff).limit(chunk)
                with self.engine.begin() as conn:
                    result = conn.execute(sa.delete(table).where(key.in_(doomed.scalar_subquery())))
                count = result.rowcount or 0
                deleted += count
                if count < chunk:
                    break
        with self.engine.begin() as conn:  # the budget's count of the bodies held
            recount(conn)
        return deleted

    # -- status ----------------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """``{"events": n, "unfolded": n, "quarantine": n, "quarantine_unfolded": n,
        "key_conflicts": n, "quarantine_bytes": n, "quarantine_dropped": n,
        "quarantine_dropped_bytes": n}`` (``key_conflicts``: events stored under a conflict key;
        ``quarantine_bytes``: bytes of the bodies in quarantine; ``quarantine_dropped``: bodies
        the quarantine's byte budget deleted before the fold read them, and their bytes)."""
        e, q = events_table.c, quarantine_table.c
        count = sa.select(sa.func.count())
        queries = {
            "events": count.select_from(events_table),
            "unfolded": count.where(e.folded_at.is_(None)),
            "quarantine": count.select_from(quarantine_table),
            "quarantine_unfolded": count.where(q.folded_at.is_(None)),
            "key_conflicts": count.where(e.conflict_of.is_not(None)),
        }
        held = ("quarantine_bytes", "quarantine_dropped", "quarantine_dropped_bytes")
        with self.engine.connect() as conn:
            counted = counters(conn)
            found = {name: int(conn.execute(query).scalar_one()) for name, query in queries.items()}
        return {name: counted.get(name, 0) for name in held} | found

    def ping(self) -> None:
        """Raise unless the database answers."""
        with self.engine.connect() as conn:
            conn.execute(sa.text("select 1"))


def waited_past_timeout(exc: BaseException) -> bool:
    """Whether a write failed because it waited for a lock, or ran, past the ``timeout`` it was
    given: SQLite busy (``database is locked``), PostgreSQL ``lock_timeout`` (SQLSTATE 55P03)
    or ``statement_timeout`` (57014)."""
    orig = getattr(exc, "orig", None)
    if orig is None:
        return False
    if getattr(orig, "sqlite_errorname", None) in ("SQLITE_BUSY", "SQLITE_LOCKED"):
        return True
    return getattr(orig, "pgcode", None) in ("55P03", "57014")


def _log_key_conflicts(results: Sequence[StoredEvent]) -> None:
    """A warning for each event of :meth:`Inbox.store` stored under a conflict key."""
    for result in results:
        if result.outcome == "key_conflict":
            logger.warning(
                "inbox: event key %s was stored with another body; this one is stored as %s",
                result.conflict_of, result.event_key,
            )  # fmt: skip


def _lost_a_deadlock(exc: sa.exc.OperationalError) -> bool:
    """Whether PostgreSQL aborted the transaction to break a deadlock or a serialization
    conflict (SQLSTATE 40P01, 40001): running it again succeeds."""
    return getattr(exc.orig, "pgcode", None) in ("40P01", "40001")
