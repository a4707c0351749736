"""The durable webhook inbox: SQLAlchemy Core over SQLite by default, PostgreSQL unchanged.

Tables:

``inbox_events``
    One row per distinct event: its key (:func:`sources.webhooks.events.event_key`: the
    ``requestId`` with the event's type and identity, else a hash of the body), the raw body and
    the envelope fields read at receipt. A delivery whose key is stored with another body is a
    different event: it is stored under ``<key>#<16 hex of its body>`` with ``conflict_of`` =
    the key (and counted, :meth:`Inbox.counts`); an exact re-delivery is stored once.
    ``folded_at`` is set once the fold job has loaded the row into the warehouse; folded rows
    older than the retention are pruned.
``inbox_quarantine``
    Every body the receiver refused as malformed, oversized or unstorable (the raw bytes, up to
    the size limit, and the reason), so nothing received is lost.

SQLite runs in WAL mode with ``synchronous=FULL``: a commit is on disk before the receiver answers.
Each write transaction takes the write lock first (``BEGIN IMMEDIATE``) and waits for a busy
writer up to the busy timeout (30 s, or the URL's ``?timeout=<seconds>``).

Inboxes created before a column existed get it added when opened (:meth:`Inbox.__init__`); rows
stored before then keep their keys (the ``requestId`` alone), and a re-delivery of such an event
is recognised by that key (``Envelope.legacy_key``).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from .events import Envelope

logger = logging.getLogger("sources.webhooks.inbox")

DEFAULT_INBOX_URL = "sqlite:///data/inbox.sqlite3"
KEY_CHUNK = 500
"""Keys per ``IN (...)`` list when looking stored events up."""
DEADLOCK_ATTEMPTS = 3
"""Tries of one write transaction that PostgreSQL aborts as a deadlock or serialization victim."""


def config_value(key: str) -> Any:
    """A setting of the ``[webhooks]`` section the dlt way (env ``WEBHOOKS__<KEY>``, config or
    secrets toml), or ``None`` when unset."""
    import dlt

    try:
        return dlt.config.get(f"webhooks.{key}") or dlt.secrets.get(f"webhooks.{key}")
    except Exception:  # noqa: BLE001 - unresolvable means unset
        return None


def inbox_url_from_config() -> str:
    """``WEBHOOKS__INBOX_URL`` / ``[webhooks] inbox_url``, default ``sqlite:///data/inbox.sqlite3``."""
    return str(config_value("inbox_url") or DEFAULT_INBOX_URL)


metadata = sa.MetaData()

events_table = sa.Table(
    "inbox_events",
    metadata,
    sa.Column(
        "inbox_id",
        sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
        primary_key=True,
        autoincrement=True,
    ),
    sa.Column("event_key", sa.String(200), nullable=False, unique=True),
    sa.Column("event_type", sa.String(200)),
    sa.Column("family", sa.String(40), nullable=False),
    sa.Column("is_known_type", sa.Boolean, nullable=False),
    sa.Column("event_timestamp", sa.BigInteger),
    sa.Column("activity_type", sa.String(200)),
    sa.Column("company", sa.String(200)),
    sa.Column("webhook_version", sa.String(40)),
    sa.Column("received_at", sa.Float, nullable=False),
    sa.Column("body", sa.LargeBinary, nullable=False),
    sa.Column("folded_at", sa.Float),
    # added later: null in rows stored before (the fold reads them from the body)
    sa.Column("request_id", sa.Text),
    sa.Column("is_event_time_implausible", sa.Boolean),
    sa.Column("conflict_of", sa.String(200)),
)
ADDED_COLUMNS = ("request_id", "is_event_time_implausible", "conflict_of")
"""Columns of ``inbox_events`` newer than the first inboxes; added to an old table on open."""
sa.Index(
    "ix_inbox_events_unfolded",
    events_table.c.inbox_id,
    sqlite_where=events_table.c.folded_at.is_(None),
    postgresql_where=events_table.c.folded_at.is_(None),
)
sa.Index("ix_inbox_events_folded_at", events_table.c.folded_at)

quarantine_table = sa.Table(
    "inbox_quarantine",
    metadata,
    sa.Column(
        "quarantine_id",
        sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
        primary_key=True,
        autoincrement=True,
    ),
    sa.Column("received_at", sa.Float, nullable=False),
    sa.Column("status_code", sa.Integer, nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("content_type", sa.String(200)),
    sa.Column("body_bytes", sa.BigInteger, nullable=False),
    sa.Column("is_truncated", sa.Boolean, nullable=False),
    sa.Column("body", sa.LargeBinary, nullable=False),
    sa.Column("folded_at", sa.Float),
)


@dataclass(frozen=True)
class ReceivedEvent:
    """One accepted event, ready to insert: its envelope, raw body, receipt time (epoch s) and
    the request's ``Content-Type`` (kept if the body has to be quarantined after all)."""

    envelope: Envelope
    body: bytes
    received_at: float
    content_type: str | None = None


@dataclass(frozen=True)
class StoredEvent:
    """Where one event of :meth:`Inbox.insert_events` went.

    Attributes:
        event_key: The key it is stored under (its envelope's key, or ``<key>#<16 hex>`` for a
            different body under a stored key).
        outcome: ``stored`` (a new row), ``key_conflict`` (a new row: its envelope's key was
            stored with another body) or ``redelivery`` (the same body was already stored under
            the key, or under its ``legacy_key``: nothing written).
        conflict_of: The envelope's key when the event is stored under a conflict key.
    """

    event_key: str
    outcome: str
    conflict_of: str | None = None


class KeyCollisionError(ValueError):
    """Two different bodies share an event key and its conflict key (a 64-bit digest
    collision): the body cannot be stored as an event."""


class InboxRaceError(RuntimeError):
    """Other writers kept taking the keys of a batch between its read and its insert (several
    receivers on one PostgreSQL inbox); retrying the batch resolves it."""


@dataclass(frozen=True)
class RefusedBody:
    """One refused body for quarantine.

    Attributes:
        status_code: The status the receiver answered (422 or 413).
        reason: Why it was refused, as told to the sender.
        body: The raw bytes (at most the size limit).
        body_bytes: The full size the sender declared or sent.
        content_type: The request's ``Content-Type``.
        received_at: Epoch seconds.
    """

    status_code: int
    reason: str
    body: bytes
    body_bytes: int
    content_type: str | None
    received_at: float


class Inbox:
    """The inbox database.

    Args:
        url: SQLAlchemy URL: ``sqlite:///data/inbox.sqlite3`` (default) or
            ``postgresql://user:password@host/db`` (driven by psycopg2, the driver dlt's
            postgres destination uses too, unless the URL names another). SQLite folders are
            created as needed.

    Raises:
        sqlalchemy.exc.ArgumentError: The URL is not a database URL.
    """

    def __init__(self, url: str = DEFAULT_INBOX_URL) -> None:
        self.url = sa.engine.make_url(url)
        if self.url.drivername in ("postgresql", "postgres"):
            self.url = self.url.set(drivername="postgresql+psycopg2")
        database = self.url.database
        if self.url.get_backend_name() == "sqlite" and database and database != ":memory:":
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self.engine: Engine = sa.create_engine(self.url, pool_pre_ping=True)
        if self.dialect == "sqlite":
            busy_ms = 30_000 if "timeout" not in self.url.query else None
            sa.event.listen(self.engine, "connect", _sqlite_pragmas(busy_ms))
        metadata.create_all(self.engine)
        self._add_missing_columns()

    def _add_missing_columns(self) -> None:
        """Add :data:`ADDED_COLUMNS` to an ``inbox_events`` table made before they existed
        (nullable: old rows keep ``NULL``). Safe when several processes open the inbox at once."""
        present = {c["name"] for c in sa.inspect(self.engine).get_columns("inbox_events")}
        for name in ADDED_COLUMNS:
            if name in present:
                continue
            column = events_table.c[name]
            ddl = column.type.compile(dialect=self.engine.dialect)
            exists = " IF NOT EXISTS" if self.dialect == "postgresql" else ""
            try:
                with self.engine.begin() as conn:
                    conn.exec_driver_sql(
                        f"ALTER TABLE inbox_events ADD COLUMN{exists} {name} {ddl}"
                    )
                logger.info("inbox: added column inbox_events.%s", name)
            except sa.exc.OperationalError:  # another process added it meanwhile
                added = {c["name"] for c in sa.inspect(self.engine).get_columns("inbox_events")}
                if name not in added:
                    raise

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    def describe(self) -> str:
        """The URL without its password."""
        return self.url.render_as_string(hide_password=True)

    def close(self) -> None:
        """Dispose of the connection pool."""
        self.engine.dispose()

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
        self, events: Sequence[ReceivedEvent], refused: Sequence[RefusedBody]
    ) -> list[StoredEvent]:
        """Store events and refused bodies in one durable transaction.

        An event whose key is new is stored under it. One whose key is stored with the same
        body (or whose ``legacy_key`` is) is a re-delivery: nothing is written. One whose key
        is stored with a different body is stored under ``<key>#<16 hex of its body>`` with
        ``conflict_of`` = the key, and logged.

        Returns:
            One :class:`StoredEvent` per event, in order.

        Raises:
            sqlalchemy.exc.OperationalError: The database is unreachable, or locked past its
                busy timeout (transient: retry). A transaction PostgreSQL aborts to break a
                deadlock is run again first (:data:`DEADLOCK_ATTEMPTS`).
            KeyCollisionError: A body collides with another under both its keys (not
                storable: refuse the body).
            InboxRaceError: Other writers kept taking the batch's keys (transient: retry).
            Exception: What the driver raised for a value it cannot store
                (:func:`caused_by_body` tells which).
        """
        if not events and not refused:
            return []
        for attempt in range(1, DEADLOCK_ATTEMPTS + 1):
            try:
                with self.engine.begin() as conn:
                    if self.dialect == "sqlite":  # take the write lock now, not at the insert
                        conn.exec_driver_sql("BEGIN IMMEDIATE")
                    if refused:
                        rows = [_quarantine_row(r) for r in refused]
                        conn.execute(quarantine_table.insert(), rows)
                    results = self._store_events(conn, events) if events else []
                break
            except sa.exc.OperationalError as exc:  # PostgreSQL chose this one as a victim
                if attempt == DEADLOCK_ATTEMPTS or not _lost_a_deadlock(exc):
                    raise
                logger.info("inbox: transaction lost a deadlock (attempt %d); retrying", attempt)
        for result in results:
            if result.outcome == "key_conflict":
                logger.warning(
                    "inbox: event key %s was stored with another body; this one is stored as %s",
                    result.conflict_of, result.event_key,
                )  # fmt: skip
        return results

    def _store_events(
        self, conn: sa.Connection, events: Sequence[ReceivedEvent]
    ) -> list[StoredEvent]:
        """Classify and insert ``events`` inside ``conn``'s transaction (see :meth:`store`)."""
        results: list[StoredEvent | None] = [None] * len(events)
        first_of: dict[tuple[str, bytes], int] = {}
        copies: dict[int, int] = {}
        pending: list[int] = []
        for i, event in enumerate(events):  # a body twice in the batch: decided once
            seen = first_of.setdefault((event.envelope.event_key, event.body), i)
            if seen != i:
                copies[i] = seen
            else:
                pending.append(i)
        bodies: dict[str, bytes] = {}
        for _ in range(3):
            if not pending:
                break
            bodies.update(self._stored_bodies(conn, self._lookups(events, pending, bodies)))
            taken = [i for i in pending if events[i].envelope.event_key in bodies
                     and bodies[events[i].envelope.event_key] != events[i].body]  # fmt: skip
            alternatives = {conflict_key(events[i].envelope.event_key, events[i].body)
                            for i in taken}  # fmt: skip
            bodies.update(self._stored_bodies(conn, alternatives - bodies.keys()))
            rows: list[dict[str, Any]] = []
            tried: dict[int, tuple[str, str | None]] = {}
            for i in pending:
                event = events[i]
                key, base = event.envelope.event_key, event.envelope.event_key
                legacy = event.envelope.legacy_key
                if key not in bodies and legacy and bodies.get(legacy) == event.body:
                    results[i] = StoredEvent(legacy, "redelivery")
                    continue
                if key in bodies and bodies[key] != event.body:
                    key = conflict_key(base, event.body)
                    if key in bodies and bodies[key] != event.body:
                        raise KeyCollisionError(
                            f"event key {base!r} and its conflict key are both stored with "
                            "other bodies"
                        )
                if key in bodies:
                    results[i] = StoredEvent(key, "redelivery", None if key == base else base)
                    continue
                conflict_of = None if key == base else base
                bodies[key] = event.body
                rows.append(_event_row(event, key, conflict_of))
                tried[i] = (key, conflict_of)
            inserted = self._insert_rows(conn, rows)
            # another writer (PostgreSQL) may have stored a key between the read and the insert
            others = self._stored_bodies(conn, {k for k, _ in tried.values()} - inserted)
            pending = []
            for i, (key, conflict_of) in tried.items():
                if key in inserted:
                    outcome = "stored" if conflict_of is None else "key_conflict"
                    results[i] = StoredEvent(key, outcome, conflict_of)
                elif others.get(key) == events[i].body:
                    results[i] = StoredEvent(key, "redelivery", conflict_of)
                else:
                    bodies[key] = others.get(key, b"")
                    pending.append(i)
        if pending:
            raise InboxRaceError(f"{len(pending)} event(s) lost their keys to other writers")
        for i, first in copies.items():
            done = results[first]
            assert done is not None
            results[i] = StoredEvent(done.event_key, "redelivery", done.conflict_of)
        return [r for r in results if r is not None]

    @staticmethod
    def _lookups(
        events: Sequence[ReceivedEvent], pending: Iterable[int], known: dict[str, bytes]
    ) -> set[str]:
        """The keys (and legacy keys) of ``pending`` events not looked up yet."""
        keys: set[str] = set()
        for i in pending:
            envelope = events[i].envelope
            keys.add(envelope.event_key)
            if envelope.legacy_key:
                keys.add(envelope.legacy_key)
        return keys - known.keys()

    def _stored_bodies(self, conn: sa.Connection, keys: Iterable[str]) -> dict[str, bytes]:
        """``{event_key: body}`` of the stored events among ``keys``."""
        wanted = sorted(keys)
        found: dict[str, bytes] = {}
        mark = "?" if self.dialect == "sqlite" else "%s"  # the driver's own placeholders: the
        for start in range(0, len(wanted), KEY_CHUNK):  # statement is run once per group commit
            part = tuple(wanted[start : start + KEY_CHUNK])
            marks = ", ".join([mark] * len(part))
            query = f"select event_key, body from inbox_events where event_key in ({marks})"
            rows = conn.exec_driver_sql(query, part).tuples()
            found.update((str(key), bytes(body)) for key, body in rows)
        return found

    def _insert_rows(self, conn: sa.Connection, rows: list[dict[str, Any]]) -> set[str]:
        """Insert event rows, skipping keys already stored; the keys inserted.

        Rows go in key order, so concurrent writers lock keys in one order (no deadlocks). On
        SQLite the write lock is held since the transaction's first read, so every row is new;
        on PostgreSQL the keys actually inserted are returned by the insert."""
        if not rows:
            return set()
        rows.sort(key=lambda row: str(row["event_key"]))
        if self.dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            upsert = pg_insert(events_table).on_conflict_do_nothing(index_elements=["event_key"])
            returned = conn.execute(upsert.returning(events_table.c.event_key), rows)
            keys: list[Any] = list(returned.scalars())
            return {str(key) for key in keys}
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        insert = sqlite_insert(events_table).on_conflict_do_nothing(index_elements=["event_key"])
        conn.execute(insert, rows)
        return {str(row["event_key"]) for row in rows}

    # -- folding ---------------------------------------------------------------------------------

    def unfolded_events(
        self, batch_size: int, upto_id: int | None = None
    ) -> Iterator[list[tuple[Any, ...]]]:
        """Batches of rows not yet folded, in ``inbox_id`` order.

        Each row: ``(inbox_id, event_key, event_type, family, is_known_type, event_timestamp,
        activity_type, company, webhook_version, received_at, body, request_id,
        is_event_time_implausible, conflict_of)``; the last three are ``None`` in rows stored
        before those columns existed.

        Args:
            batch_size: Rows per batch.
            upto_id: Read no row with a larger ``inbox_id`` (a snapshot bound, so a fold ends
                while events keep arriving).
        """
        c = events_table.c
        columns = [c.inbox_id, c.event_key, c.event_type, c.family, c.is_known_type,
                   c.event_timestamp, c.activity_type, c.company, c.webhook_version,
                   c.received_at, c.body, c.request_id, c.is_event_time_implausible,
                   c.conflict_of]  # fmt: skip
        last: int = 0
        while True:
            query = sa.select(*columns).where(c.folded_at.is_(None), c.inbox_id > last)
            if upto_id is not None:
                query = query.where(c.inbox_id <= upto_id)
            query = query.order_by(c.inbox_id).limit(batch_size)
            with self.engine.connect() as conn:
                rows = [tuple(r) for r in conn.execute(query)]
            if not rows:
                return
            yield rows
            last = int(cast(int, rows[-1][0]))
            if len(rows) < batch_size:
                return

    def unfolded_quarantine(self) -> list[tuple[Any, ...]]:
        """Quarantined bodies not yet folded: ``(quarantine_id, received_at, status_code, reason,
        content_type, body_bytes, is_truncated, body)``."""
        c = quarantine_table.c
        query = (
            sa.select(
                c.quarantine_id,
                c.received_at,
                c.status_code,
                c.reason,
                c.content_type,
                c.body_bytes,
                c.is_truncated,
                c.body,
            )
            .where(c.folded_at.is_(None))
            .order_by(c.quarantine_id)
        )
        with self.engine.connect() as conn:
            return [tuple(r) for r in conn.execute(query)]

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
        return deleted

    # -- status ----------------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """``{"events": n, "unfolded": n, "quarantine": n, "quarantine_unfolded": n,
        "key_conflicts": n}`` (``key_conflicts``: events stored under a conflict key)."""
        e, q = events_table.c, quarantine_table.c
        with self.engine.connect() as conn:
            return {
                "events": conn.execute(
                    sa.select(sa.func.count()).select_from(events_table)
                ).scalar_one(),
                "unfolded": conn.execute(
                    sa.select(sa.func.count()).where(e.folded_at.is_(None))
                ).scalar_one(),
                "quarantine": conn.execute(
                    sa.select(sa.func.count()).select_from(quarantine_table)
                ).scalar_one(),
                "quarantine_unfolded": conn.execute(
                    sa.select(sa.func.count()).where(q.folded_at.is_(None))
                ).scalar_one(),
                "key_conflicts": conn.execute(
                    sa.select(sa.func.count()).where(e.conflict_of.is_not(None))
                ).scalar_one(),
            }

    def ping(self) -> None:
        """Raise unless the database answers."""
        with self.engine.connect() as conn:
            conn.execute(sa.text("select 1"))


def _sqlite_pragmas(busy_ms: int | None) -> Any:
    """A connect hook: WAL with a full fsync on every commit, and waiting ``busy_ms`` for a busy
    writer instead of failing (``None``: the URL's ``timeout`` already set the wait)."""

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        if busy_ms is not None:
            cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
        cursor.close()

    return on_connect


def _lost_a_deadlock(exc: sa.exc.OperationalError) -> bool:
    """Whether PostgreSQL aborted the transaction to break a deadlock or a serialization
    conflict (SQLSTATE 40P01, 40001): running it again succeeds."""
    return getattr(exc.orig, "pgcode", None) in ("40P01", "40001")


def conflict_key(key: str, body: bytes) -> str:
    """The key of a body that differs from the one stored under ``key``:
    ``<key>#<first 16 hex of the body's SHA-256>``."""
    return f"{key}#{hashlib.sha256(body).hexdigest()[:16]}"


def caused_by_body(exc: BaseException) -> bool:
    """Whether a failed inbox write failed because of a value it was given (so retrying the
    same body can never succeed), as opposed to the database (unreachable, locked past its
    timeout, disk full, a lost connection: retrying may succeed).

    Body faults: the database refused a value (``DataError``, ``IntegrityError``), the driver
    could not bind one (``ValueError`` such as NUL in PostgreSQL text, ``OverflowError`` such as
    an integer beyond 64 bits in SQLite, ``TypeError``), or :class:`KeyCollisionError`.
    """
    if isinstance(exc, sa.exc.DataError | sa.exc.IntegrityError):
        return True
    if isinstance(exc, sa.exc.DBAPIError):
        return False
    if isinstance(exc, sa.exc.StatementError) and exc.orig is not None:
        exc = exc.orig
    return isinstance(exc, ValueError | TypeError | OverflowError)


def _event_row(event: ReceivedEvent, key: str, conflict_of: str | None) -> dict[str, Any]:
    e = event.envelope
    return {
        "event_key": key,
        "event_type": e.event_type,
        "family": e.family,
        "is_known_type": e.is_known_type,
        "event_timestamp": e.event_timestamp,
        "activity_type": e.activity_type,
        "company": e.company,
        "webhook_version": e.webhook_version,
        "received_at": event.received_at,
        "body": event.body,
        "request_id": e.request_id,
        "is_event_time_implausible": e.is_event_time_implausible,
        "conflict_of": conflict_of,
    }


def _quarantine_row(r: RefusedBody) -> dict[str, Any]:
    return {
        "received_at": r.received_at,
        "status_code": r.status_code,
        "reason": r.reason.replace("\x00", "\ufffd"),
        "content_type": None if r.content_type is None else r.content_type[:200],
        "body_bytes": min(r.body_bytes, 2**63 - 1),
        "is_truncated": len(r.body) < r.body_bytes,
        "body": r.body,
    }
