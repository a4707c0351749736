"""The inbox's tables (SQLAlchemy Core, the same on SQLite and PostgreSQL) and how they are opened.

``inbox_events``
    One row per distinct event: its key (:func:`sources.webhooks.events.event_key`: the
    ``requestId`` with the event's type and identity, else a hash of the body), the raw body and
    the envelope fields read at receipt. ``conflict_of`` names the key a different body already
    held (the event is then stored under ``<key>#<16 hex of its body>``). ``folded_at`` (epoch
    seconds) is set once the fold job has loaded the row into the warehouse.
``inbox_quarantine``
    Every body the receiver refused as malformed, oversized or unstorable (the raw bytes, up to
    the size limit, and the reason), so nothing received is lost.

Inboxes created before a column of :data:`ADDED_COLUMNS` existed get it added when opened
(:func:`add_missing_columns`); their old rows hold ``NULL`` there.
"""

from __future__ import annotations

import logging
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

logger = logging.getLogger("sources.webhooks.inbox")

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


def sqlite_pragmas(busy_ms: int | None) -> Any:
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
