"""The document bulk's input: rows of requested entries from a CSV file or a DuckDB query.

Columns ``user_id``, ``document_id``, ``file`` (a local path), optional ``note``, and any further
columns as entry fields. Every row's ids are checked before any row is used (``userId`` an integer
≥ 1, ``documentId`` an integer, as the interface types them:
:func:`sources.connecteam.documents.validate_ids`), so a bad row stops the bulk before anything
is uploaded.
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import orjson

from sources.connecteam.documents import validate_ids

REQUIRED_COLUMNS = ("user_id", "document_id", "file")


class BulkInputError(ValueError):
    """The rows cannot be read: a missing column, an invalid id, an unreadable source."""


@dataclass(frozen=True)
class EntryRow:
    """One requested document entry.

    Attributes:
        user_id: The user (integer ≥ 1).
        document_id: The document (integer).
        file: Path of the file to upload (relative paths resolve against ``base_dir``).
        fields: Entry fields (every extra column).
        note: Optional note.

    Raises:
        BulkInputError: An id is not as the interface types it (checked on construction, so no
            row with a bad id ever reaches an upload).
    """

    user_id: int
    document_id: int
    file: str
    fields: dict[str, Any] = field(default_factory=dict)
    note: str | None = None

    def __post_init__(self) -> None:
        for name, value in (("user_id", self.user_id), ("document_id", self.document_id)):
            if type(value) is not int:
                raise BulkInputError(
                    f"{name} must be an int, got {value!r} (rows_from_records converts text)"
                )
        try:
            validate_ids(self.user_id, self.document_id)
        except ValueError as exc:
            raise BulkInputError(str(exc)) from None

    @property
    def entry_key(self) -> str:
        """A stable digest of the row as given (not of the file's bytes, so a row whose file was
        missing keeps its key once the file exists)."""
        canonical = orjson.dumps(
            {"user_id": self.user_id, "document_id": self.document_id, "file": self.file,
             "fields": self.fields, "note": self.note},
            option=orjson.OPT_SORT_KEYS,
        )  # fmt: skip
        return hashlib.sha256(canonical).hexdigest()[:32]


def rows_from_records(records: Iterable[dict[str, Any]]) -> list[EntryRow]:
    """Validate raw records (dicts of column -> value) into :class:`EntryRow`, every row before
    any is used.

    Raises:
        BulkInputError: A required column is missing or an id is invalid; the message lists the
            rows (up to ten) with the problem of each.
    """
    rows: list[EntryRow] = []
    problems: list[str] = []
    for number, record in enumerate(records, start=1):
        missing = [c for c in REQUIRED_COLUMNS if record.get(c) in (None, "")]
        if missing:
            problems.append(f"row {number}: missing {', '.join(missing)}")
            continue
        try:
            user_id, document_id = validate_ids(record["user_id"], record["document_id"])
        except ValueError as exc:
            problems.append(f"row {number}: {exc}")
            continue
        extra = {
            k: v
            for k, v in record.items()
            if k not in (*REQUIRED_COLUMNS, "note") and v is not None
        }
        note = record.get("note")
        rows.append(EntryRow(user_id, document_id, str(record["file"]), extra, note or None))
    if problems:
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise BulkInputError(
            "; ".join(problems[:10]) + more + "; nothing was uploaded: fix these rows and run again"
        )
    return rows


def read_csv(path: Path) -> list[EntryRow]:
    """Rows of a CSV file with a header line.

    Raises:
        BulkInputError: The file cannot be read or a row is invalid.
    """
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            return rows_from_records(csv.DictReader(handle))
    except OSError as exc:
        raise BulkInputError(f"cannot read {path}: {exc.strerror}") from None


def read_query(sql: str, database: Path) -> list[EntryRow]:
    """Rows of a DuckDB query, run read-only on the warehouse file ``database`` (in memory when
    there is none yet); the query may also read files itself, e.g. ``select * from
    read_csv('entries.csv')``.

    Raises:
        BulkInputError: The query fails or a row is invalid.
    """
    path = database
    try:
        with duckdb.connect(
            str(path) if path.exists() else ":memory:", read_only=path.exists()
        ) as con:
            relation = con.sql(sql)
            columns = list(relation.columns)
            records = [dict(zip(columns, row, strict=True)) for row in relation.fetchall()]
    except duckdb.Error as exc:
        raise BulkInputError(f"the query failed: {exc}") from None
    return rows_from_records(records)
