"""Reading an exception's story: its chain of causes, and whether a full disk is among them.

A full disk shows up in many shapes: ``OSError`` ENOSPC from a file write (dlt's load packages,
the snapshot, the Parquet marts, the report), DuckDB's ``Could not write file "...": No space
left on device`` (wrapped by dlt as a *transient* database error), SQLite's ``database or disk is
full``, PostgreSQL's ``could not extend file``. :func:`disk_full` recognises them all, so the jobs
never retry one as if it could heal and the command line says it in one line.
"""

from __future__ import annotations

import errno
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
"""``OSError`` numbers of a disk (or a quota, or a file-size limit) that takes no more bytes."""
FULL_PHRASES = (
    "No space left on device",
    "Disk quota exceeded",
    "database or disk is full",
    "File too large",
    "could not extend file",
)
"""What the drivers say when the disk is full (DuckDB, SQLite, PostgreSQL, the C library)."""
DRIVERS = frozenset({"duckdb", "_duckdb", "sqlite3", "psycopg2", "psycopg", "sqlalchemy", "dlt"})
"""Top-level modules whose errors may report a full disk in words."""
_FULL_PATH = re.compile(r'"(/[^"]+)"\s*:\s*(?:' + "|".join(map(re.escape, FULL_PHRASES)) + ")")
"""A quoted path right before the phrase (DuckDB: ``Could not write file "<path>": No space
left on device``)."""


def cause_chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes, each once: ``__cause__``, else ``__context__`` unless
    ``raise ... from None`` hid it."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        hidden = current.__suppress_context__
        current = current.__cause__ or (None if hidden else current.__context__)
    return chain


@dataclass(frozen=True)
class DiskFull:
    """A write that failed for want of space.

    Attributes:
        path: The file being written, when the error names it (else ``None``).
    """

    path: str | None

    def free_bytes(self) -> int | None:
        """Bytes free now on the disk of :attr:`path` (its nearest existing folder)."""
        if self.path is None:
            return None
        folder = Path(self.path)
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        try:
            return shutil.disk_usage(folder).free
        except OSError:
            return None

    def message(self) -> str:
        """One line: the disk is full, the path, the space free now, what to do."""
        free = self.free_bytes()
        where = f" on the disk of {self.path}" if self.path else ""
        room = f" ({free / 1024 / 1024:.1f} MiB free there now)" if free is not None else ""
        return (
            f"the disk is full: no space left{where}{room}; free some space and run again "
            "(nothing half-written is kept: the run resumes or starts clean)"
        )


def disk_full(exc: BaseException) -> DiskFull | None:
    """The full disk in ``exc``'s chain (:func:`cause_chain`), if any: an ``OSError`` of
    :data:`FULL_ERRNOS`, or an error of a database driver or of dlt (:data:`DRIVERS`) whose
    message says :data:`FULL_PHRASES` (never the provider's answer quoting such words); the
    deepest cause first (an outer error's message may quote a whole traceback)."""
    for current in reversed(cause_chain(exc)):
        if isinstance(current, OSError) and current.errno in FULL_ERRNOS:
            return DiskFull(str(current.filename) if current.filename else None)
        text = str(current)
        driver = type(current).__module__.split(".")[0] in DRIVERS
        if driver and any(phrase in text for phrase in FULL_PHRASES):
            quoted = _FULL_PATH.search(text)
            return DiskFull(quoted.group(1) if quoted else None)
    return None
