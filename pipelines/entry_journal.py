"""The document bulk's journal: every entry's state, durable the moment it is known.

A SQLite file (WAL, a full fsync per commit) beside the dlt pipelines folder, one row per
``entry_key``. The bulk writes a row's intent (status ``sending``, with the uploaded ``file_id``
and the time ``submitted_at``) *before* the entry's PUT, and the outcome right after the answer,
each in its own commit; a process killed at any moment therefore leaves every row either
settled or ``sending``, and the next run checks the ``sending`` ones with the provider instead
of submitting them again. The warehouse table ``connecteam.document_entries`` is loaded from the
journal (rows marked ``dirty`` until a load took them).

Statuses: the provider's as answered (``approved``, ``pendingApproval``, any other string),
``unknown`` (an answer without one, or settled as sent by hand), ``failed`` (not recorded:
refused, or never sent), ``sending`` (the PUT may have been sent; its outcome is not known yet,
the next run checks), and ``uncertain`` (the PUT may have been sent and the provider's listing
cannot tell whether it was recorded: never sent again until settled by hand,
:mod:`pipelines.entry_resolve`).

One bulk runs at a time per journal: :meth:`EntryJournal.open` takes ``<journal>.lock``, an OS
file lock that a killed process releases. :func:`unsettled_rows` reads without it (WAL lets a
reader look while a bulk writes).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
from filelock import FileLock, Timeout

SENDING = "sending"
FAILED = "failed"
UNKNOWN = "unknown"
UNCERTAIN = "uncertain"
UNSETTLED = (SENDING, UNCERTAIN)
"""Statuses of rows whose PUT may have been sent without a known outcome."""

COLUMNS = (
    "entry_key", "user_id", "document_id", "file", "fields", "note", "submitted_at", "status",
    "request_id", "user_document_id", "file_id", "error", "resolved_by", "recorded_at",
)  # fmt: skip
"""A journal row, as the warehouse table holds it (``fields`` a JSON object)."""

_SCHEMA = f"""
create table if not exists entries (
    entry_key text primary key,
    user_id integer not null,
    document_id integer not null,
    file text not null,
    fields text,
    note text,
    submitted_at integer,
    status text not null,
    request_id text,
    user_document_id,
    file_id text,
    error text,
    resolved_by text,
    recorded_at integer,
    dirty integer not null default 1
);
create index if not exists entries_sending on entries (status) where status = '{SENDING}';
create index if not exists entries_dirty on entries (dirty) where dirty = 1;
create table if not exists seeded (at integer not null);
"""


class JournalBusyError(RuntimeError):
    """Another document bulk holds the journal (one bulk at a time)."""


class EntryJournal:
    """The journal file; use :meth:`open`.

    Attributes:
        path: The SQLite file.
    """

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection

    @property
    def seeded(self) -> bool:
        """Whether :meth:`seed` ran to completion on this journal."""
        return self._db.execute("select count(*) from seeded").fetchone()[0] > 0

    @classmethod
    @contextmanager
    def open(cls, path: Path) -> Iterator[EntryJournal]:
        """Open (or create) the journal at ``path`` and hold its lock while the block runs.

        Raises:
            JournalBusyError: Another process holds the journal's lock.
            sqlite3.Error: The file cannot be opened or is not a journal.
        """
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(f"{path}.lock")
        try:
            lock.acquire(timeout=0)
        except Timeout:
            raise JournalBusyError(
                f"another document bulk is running on {path} (lock {path}.lock); wait for it "
                "to finish, then run again"
            ) from None
        try:
            connection = sqlite3.connect(path, isolation_level=None)  # autocommit per statement
            try:
                connection.execute("pragma journal_mode = wal")
                connection.execute("pragma synchronous = full")
                connection.executescript(_SCHEMA)
                yield cls(path, connection)
            finally:
                connection.close()
        finally:
            lock.release()

    def get(self, entry_key: str) -> dict[str, Any] | None:
        """The row of ``entry_key`` (see :data:`COLUMNS`), or ``None``."""
        rows = self._select("where entry_key = ?", (entry_key,))
        return rows[0] if rows else None

    def sending(self) -> list[dict[str, Any]]:
        """Rows whose PUT may have been sent without a known outcome (status ``sending``)."""
        return self._select("where status = ? order by submitted_at, entry_key", (SENDING,))

    def unsettled(self) -> list[dict[str, Any]]:
        """Rows whose outcome is not known (:data:`UNSETTLED`), oldest intent first."""
        return _unsettled(self._db)

    def dirty(self) -> list[dict[str, Any]]:
        """Rows changed since the last :meth:`mark_loaded`."""
        return self._select("where dirty = 1 order by entry_key", ())

    def write(self, row: dict[str, Any]) -> None:
        """Insert or replace one row (keys of :data:`COLUMNS`; absent ones are null) and commit
        it to disk before returning; the row is marked dirty."""
        values = [_storable(name, row.get(name)) for name in COLUMNS]
        placeholders = ", ".join("?" for _ in COLUMNS)
        self._db.execute(
            f"insert or replace into entries ({', '.join(COLUMNS)}, dirty) "
            f"values ({placeholders}, 1)",
            values,
        )

    def seed(self, rows: Iterable[dict[str, Any]]) -> int:
        """Add settled rows known from elsewhere (the warehouse table of an earlier version),
        not dirty, keeping rows the journal already has, and mark the journal :attr:`seeded`,
        all in one commit. Returns how many were added."""
        added = 0
        self._db.execute("begin")
        try:
            for row in rows:
                values = [_storable(name, row.get(name)) for name in COLUMNS]
                cursor = self._db.execute(
                    f"insert or ignore into entries ({', '.join(COLUMNS)}, dirty) "
                    f"values ({', '.join('?' for _ in COLUMNS)}, 0)",
                    values,
                )
                added += cursor.rowcount
            self._db.execute("insert into seeded (at) values (strftime('%s', 'now'))")
            self._db.execute("commit")
        except BaseException:
            self._db.execute("rollback")
            raise
        return added

    def mark_loaded(self, rows: Iterable[dict[str, Any]]) -> None:
        """Clear the dirty mark of rows a load took, unless they changed since they were read."""
        self._db.execute("begin")
        try:
            for row in rows:
                self._db.execute(
                    "update entries set dirty = 0 where entry_key = ? and status = ? "
                    "and recorded_at is ?",
                    (row["entry_key"], row["status"], row.get("recorded_at")),
                )
            self._db.execute("commit")
        except BaseException:
            self._db.execute("rollback")
            raise

    def _select(self, where: str, args: tuple[Any, ...]) -> list[dict[str, Any]]:
        return _select(self._db, where, args)


def unsettled_rows(path: Path) -> list[dict[str, Any]]:
    """The journal's rows whose outcome is not known (:data:`UNSETTLED`), read-only and without
    the journal's lock (a bulk may be running); none when there is no journal at ``path``.

    Raises:
        sqlite3.Error: The file is not a journal.
    """
    if not path.exists():
        return []
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return _unsettled(connection)
    finally:
        connection.close()


def _unsettled(db: sqlite3.Connection) -> list[dict[str, Any]]:
    marks = ", ".join("?" for _ in UNSETTLED)
    return _select(db, f"where status in ({marks}) order by submitted_at, entry_key", UNSETTLED)


def _select(db: sqlite3.Connection, where: str, args: tuple[Any, ...]) -> list[dict[str, Any]]:
    cursor = db.execute(f"select {', '.join(COLUMNS)} from entries {where}", args)
    rows = []
    for values in cursor.fetchall():
        row = dict(zip(COLUMNS, values, strict=True))
        row["fields"] = orjson.loads(row["fields"]) if row["fields"] else None
        rows.append(row)
    return rows


def _storable(name: str, value: Any) -> Any:
    """A value SQLite stores as given: ``fields`` as JSON text, integers beyond 64 bits (a
    provider id may be one) as their digits."""
    if name == "fields":
        return orjson.dumps(value).decode() if value else None
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        return str(value)
    return value
