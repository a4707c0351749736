"""How the inbox's database is opened: its engines, and the wait of a write for a busy writer.

The inbox has two engines over one URL. The *write* engine serves only the receiver's writes
(:meth:`inbox.Inbox.store` and its health probe), each of which states how long it may
wait for a lock (:func:`begin_write`); every other use (the fold, counts, refusals) goes through
the *shared* engine, whose connections keep the inbox's own wait. So a short wait set for one
write never stays on a connection someone else gets, without a statement at every checkout.

SQLite: WAL with a full fsync on every commit (:func:`sqlite_pragmas`); the busy timeout is the
URL's ``?timeout=<seconds>`` or :data:`SQLITE_BUSY_SECONDS`; no pre-ping (a file does not drop a
connection). PostgreSQL (psycopg2 unless the URL names another driver): a connection attempt
gives up after :data:`CONNECT_TIMEOUT` seconds unless the URL sets ``connect_timeout``; a
``statement_timeout`` for every statement when given; pre-ping before each checkout. Engines hide
bound parameters from logs and exception messages (``hide_parameters``): a failed commit never
shows an event's body.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine

from .tables import sqlite_pragmas

CONNECT_TIMEOUT = 10
"""Seconds a PostgreSQL connection attempt may take (libpq ``connect_timeout``)."""
SQLITE_BUSY_SECONDS = 30.0
"""How long an SQLite write waits for another writer by default (the URL's ``timeout`` wins)."""
BUSY_MS = "busy_ms"
"""Key, in a pooled SQLite connection's ``info``, of the busy timeout (ms) it has now."""


@dataclass(frozen=True)
class InboxEngines:
    """The inbox's engines.

    Attributes:
        url: The URL as opened (``postgresql`` spelled ``postgresql+psycopg2``).
        shared: Every use but the receiver's writes.
        writes: The receiver's writes (:func:`begin_write`); the shared engine on PostgreSQL,
            whose waits are set per transaction (``SET LOCAL``).
        busy_seconds: SQLite's wait for a busy writer when a write states none.
    """

    url: URL
    shared: Engine
    writes: Engine
    busy_seconds: float

    def dispose(self) -> None:
        """Close every pooled connection of both engines."""
        self.shared.dispose()
        if self.writes is not self.shared:
            self.writes.dispose()


def open_engines(url: str, statement_timeout: float | None = None) -> InboxEngines:
    """Open the engines of the inbox at ``url`` (SQLite folders are created as needed).

    Args:
        url: ``sqlite:///path``, ``sqlite:///path?timeout=<seconds>`` or
            ``postgresql://user:password@host/db``.
        statement_timeout: Seconds any one PostgreSQL statement may run; ``None`` sets none.
            Ignored on SQLite.

    Raises:
        sqlalchemy.exc.ArgumentError: The URL is not a database URL.
    """
    parsed = sa.engine.make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg2")
    given_timeout = parsed.query.get("timeout")
    busy = float(given_timeout) if isinstance(given_timeout, str) else SQLITE_BUSY_SECONDS
    if parsed.get_backend_name() != "sqlite":
        engine = sa.create_engine(
            parsed,
            pool_pre_ping=True,
            hide_parameters=True,
            connect_args=_postgresql_args(parsed, statement_timeout),
        )
        return InboxEngines(parsed, engine, engine, busy)
    database = parsed.database
    if database and database != ":memory:":
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    shared, writes = (_sqlite_engine(parsed, busy) for _ in range(2))
    return InboxEngines(parsed, shared, writes, busy)


def _sqlite_engine(url: URL, busy_seconds: float) -> Engine:
    engine = sa.create_engine(url, hide_parameters=True)
    busy_ms = round(busy_seconds * 1000)
    sa.event.listen(engine, "connect", sqlite_pragmas())

    def on_connect(dbapi_connection: Any, record: Any) -> None:
        _set_busy_ms(dbapi_connection, record.info, busy_ms)

    sa.event.listen(engine, "connect", on_connect)
    return engine


def _postgresql_args(url: URL, statement_timeout: float | None) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if "connect_timeout" not in url.query:
        args["connect_timeout"] = CONNECT_TIMEOUT
    if statement_timeout is not None:
        option = f"-c statement_timeout={max(1, round(statement_timeout * 1000))}"
        given = url.query.get("options")
        args["options"] = f"{given} {option}" if isinstance(given, str) else option
    return args


def _set_busy_ms(dbapi_connection: Any, info: dict[str, Any], busy_ms: int) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
    cursor.close()
    info[BUSY_MS] = busy_ms


def begin_write(engines: InboxEngines, conn: sa.Connection, timeout: float | None) -> None:
    """Start a write transaction on ``conn`` (of ``engines.writes``) that waits at most
    ``timeout`` seconds for a lock (``None``: the inbox's own wait).

    SQLite: the connection's busy timeout is set only when it differs from the one it has
    (writers passing the same wait cost no statement), then ``BEGIN IMMEDIATE`` takes the write
    lock now, not at the first insert. PostgreSQL: ``SET LOCAL`` ``statement_timeout`` and
    ``lock_timeout`` when ``timeout`` is given.
    """
    if conn.dialect.name == "sqlite":
        wait = engines.busy_seconds if timeout is None else min(timeout, engines.busy_seconds)
        busy_ms = max(1, round(wait * 1000))
        fairy = conn.connection
        if fairy.info.get(BUSY_MS) != busy_ms:
            _set_busy_ms(fairy.dbapi_connection, fairy.info, busy_ms)
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    elif timeout is not None:
        ms = max(1, round(timeout * 1000))
        conn.exec_driver_sql(f"SET LOCAL statement_timeout = {ms}; SET LOCAL lock_timeout = {ms}")
