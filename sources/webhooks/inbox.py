"""The durable webhook inbox: SQLAlchemy Core over SQLite by default, PostgreSQL unchanged.

Tables:

``inbox_events``
    One row per distinct event key (``requestId``, else a hash of the body): the raw body and the
    envelope fields read at receipt. ``folded_at`` is set once the fold job has loaded the row
    into the warehouse; folded rows older than the retention are pruned.
``inbox_quarantine``
    Every body the receiver refused as malformed or oversized (the raw bytes, up to the size
    limit, and the reason), so nothing received is lost.

SQLite runs in WAL mode with ``synchronous=FULL``: a commit is on disk before the receiver answers.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from .events import Envelope

DEFAULT_INBOX_URL = "sqlite:///data/inbox.sqlite3"


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
)
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
    """One accepted event, ready to insert: its envelope, raw body and receipt time (epoch s)."""

    envelope: Envelope
    body: bytes
    received_at: float


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
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        metadata.create_all(self.engine)

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

    def insert_events(self, events: Sequence[ReceivedEvent]) -> int:
        """Insert events in one durable transaction; duplicates of a stored key are skipped.

        Returns:
            How many rows were new.
        """
        if not events:
            return 0
        rows = [
            {
                "event_key": e.envelope.event_key,
                "event_type": e.envelope.event_type,
                "family": e.envelope.family,
                "is_known_type": e.envelope.is_known_type,
                "event_timestamp": e.envelope.event_timestamp,
                "activity_type": e.envelope.activity_type,
                "company": e.envelope.company,
                "webhook_version": e.envelope.webhook_version,
                "received_at": e.received_at,
                "body": e.body,
            }
            for e in events
        ]
        statement = self._insert_ignoring_duplicates(events_table)
        with self.engine.begin() as conn:
            result = conn.execute(statement, rows)
        return max(0, result.rowcount) if result.rowcount is not None else len(rows)

    def insert_quarantine(self, refused: Sequence[RefusedBody]) -> None:
        """Keep refused bodies, in one durable transaction."""
        if not refused:
            return
        with self.engine.begin() as conn:
            conn.execute(
                quarantine_table.insert(),
                [
                    {
                        "received_at": r.received_at,
                        "status_code": r.status_code,
                        "reason": r.reason,
                        "content_type": r.content_type,
                        "body_bytes": r.body_bytes,
                        "is_truncated": len(r.body) < r.body_bytes,
                        "body": r.body,
                    }
                    for r in refused
                ],
            )

    def _insert_ignoring_duplicates(self, table: sa.Table) -> Any:
        if self.dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            return pg_insert(table).on_conflict_do_nothing(index_elements=["event_key"])
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(table).on_conflict_do_nothing(index_elements=["event_key"])

    # -- folding ---------------------------------------------------------------------------------

    def unfolded_events(
        self, batch_size: int, upto_id: int | None = None
    ) -> Iterator[list[tuple[Any, ...]]]:
        """Batches of rows not yet folded, in ``inbox_id`` order.

        Each row: ``(inbox_id, event_key, event_type, family, is_known_type, event_timestamp,
        activity_type, company, webhook_version, received_at, body)``.

        Args:
            batch_size: Rows per batch.
            upto_id: Read no row with a larger ``inbox_id`` (a snapshot bound, so a fold ends
                while events keep arriving).
        """
        c = events_table.c
        columns = [c.inbox_id, c.event_key, c.event_type, c.family, c.is_known_type,
                   c.event_timestamp, c.activity_type, c.company, c.webhook_version,
                   c.received_at, c.body]  # fmt: skip
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
        """``{"events": n, "unfolded": n, "quarantine": n, "quarantine_unfolded": n}``."""
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
            }

    def ping(self) -> None:
        """Raise unless the database answers."""
        with self.engine.connect() as conn:
            conn.execute(sa.text("select 1"))


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL with a full fsync on every commit, and waiting for a busy writer instead of failing."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
