"""The inbox's tables (SQLAlchemy Core, the same on SQLite and PostgreSQL) and how they are opened.

``inbox_events``
    One row per distinct event: its key (:func:`inbox.envelope.event_key`: the
    ``requestId`` with the event's type and identity, else a hash of the body), the raw body and
    the envelope fields read at receipt. ``conflict_of`` names the key a different body already
    held (the event is then stored under ``<key>#<16 hex of its body>``). ``folded_at`` (epoch
    seconds) is set once the fold job has loaded the row into the warehouse.
``inbox_quarantine``
    Every body the receiver refused as malformed, oversized or unstorable (the raw bytes, up to
    the size limit, and the reason), within a byte budget
    (:mod:`inbox.quarantine_budget`).
``inbox_counters``
    Named running counts (:data:`COUNTERS`): the bytes of quarantined bodies held, the bodies the
    budget dropped before the fold read them, and the time of the receiver's last write probe.

Inboxes created before a column of :data:`ADDED_COLUMNS` existed get it added when opened
(:func:`add_missing_columns`); their old rows hold ``NULL`` there.
"""

from __future__ import annotations

import logging
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine

logger = logging.getLogger("inbox")

metadata = sa.MetaData()

WAL_SIZE_LIMIT = 64 * 1024 * 1024
"""Bytes an SQLite inbox's write-ahead log is truncated to after a checkpoint."""

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
    # the account whose path the event came in on; null: the default account (and old rows)
    sa.Column("account", sa.String(40)),
)
ADDED_COLUMNS = ("request_id", "is_event_time_implausible", "conflict_of", "account")
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


counters_table = sa.Table(
    "inbox_counters",
    metadata,
    sa.Column("name", sa.String(60), primary_key=True),
    sa.Column("value", sa.BigInteger, nullable=False),
)
COUNTERS = ("quarantine_bytes", "quarantine_dropped", "quarantine_dropped_bytes", "health_probe")
"""The rows of ``inbox_counters``: ``quarantine_bytes`` (bytes of the bodies in
``inbox_quarantine``, recounted at each prune), ``quarantine_dropped`` and
``quarantine_dropped_bytes`` (bodies, and their bytes, the byte budget deleted before the fold
read them), ``health_probe`` (epoch seconds of the receiver's last write probe)."""


def held_bytes() -> sa.ScalarSelect[Any]:
    """A scalar subquery: the bytes of the bodies in ``inbox_quarantine`` now (0 when empty)."""
    size = sa.func.length(quarantine_table.c.body)
    return sa.select(sa.func.coalesce(sa.func.sum(size), 0)).scalar_subquery()


def dialect_insert(engine: Engine, table: sa.Table) -> Any:
    """An ``INSERT`` into ``table`` in ``engine``'s dialect (PostgreSQL's or SQLite's), so it can
    take ``on_conflict_do_nothing`` / ``on_conflict_do_update``."""
    if engine.dialect.name == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


def add_missing_counters(engine: Engine) -> None:
    """Create the :data:`COUNTERS` rows an inbox lacks (``quarantine_bytes`` counted from the
    bodies held, the others 0). Safe when several processes open the inbox at once."""
    with engine.connect() as conn:
        present: set[str] = set(conn.execute(sa.select(counters_table.c.name)).scalars())
    missing = [name for name in COUNTERS if name not in present]
    if not missing:
        return
    insert = dialect_insert(engine, counters_table)
    with engine.begin() as conn:
        for name in missing:
            value = held_bytes() if name == "quarantine_bytes" else sa.literal(0, sa.BigInteger)
            conn.execute(insert.from_select(["name", "value"], sa.select(sa.literal(name), value))
                         .on_conflict_do_nothing())  # fmt: skip


def add_missing_columns(engine: Engine) -> None:
    """Add :data:`ADDED_COLUMNS` to an ``inbox_events`` table made before they existed
    (nullable: old rows keep ``NULL``). Safe when several processes open the inbox at once.

    Raises:
        sqlalchemy.exc.OperationalError: The column could not be added and is still missing.
    """
    present = {c["name"] for c in sa.inspect(engine).get_columns("inbox_events")}
    for name in ADDED_COLUMNS:
        if name in present:
            continue
        ddl = events_table.c[name].type.compile(dialect=engine.dialect)
        exists = " IF NOT EXISTS" if engine.dialect.name == "postgresql" else ""
        try:
            with engine.begin() as conn:
                conn.exec_driver_sql(f"ALTER TABLE inbox_events ADD COLUMN{exists} {name} {ddl}")
            logger.info("inbox: added column inbox_events.%s", name)
        except sa.exc.OperationalError:  # another process added it meanwhile
            added = {c["name"] for c in sa.inspect(engine).get_columns("inbox_events")}
            if name not in added:
                raise


def sqlite_pragmas() -> Any:
    """A connect hook: WAL with a full fsync on every commit and the WAL file cut back to 64 MiB
    after each checkpoint (so a burst of large bodies does not keep its disk space). How long a
    connection waits for a busy writer: :mod:`inbox.engines`."""

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
        cursor.close()

    return on_connect
