"""The ``documents`` job: record document entries in bulk and keep every outcome in the warehouse.

Rows come from a CSV file or a DuckDB query with the columns ``user_id``, ``document_id``, ``file``
(a local path), optional ``note``, and any further columns as entry fields. For each row the file
is uploaded and the entry recorded; the outcome (status, requestId, error) lands in the warehouse
table ``connecteam.document_entries``, merged on the row's ``entry_key`` (a digest of the row as
given). A re-run skips every row whose entry was recorded and retries the ones that failed, so the
same bulk never submits an entry twice.
"""

from __future__ import annotations

import csv
import hashlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dlt
import duckdb
import orjson

from sources.connecteam import ConnecteamClient, ConnecteamError
from sources.connecteam.documents import ENTRY_STATUSES, WRITE_SCOPES, put_entry, upload_file

from .warehouse import (
    DATASET_CONNECTEAM,
    build_pipeline,
    finish_pending_loads,
    loader_file_format,
    warehouse_path,
)

logger = logging.getLogger("pipelines.documents")

TABLE = "document_entries"
REQUIRED_COLUMNS = ("user_id", "document_id", "file")


class BulkInputError(ValueError):
    """The rows cannot be read: a missing column, a non-integer id, an unreadable source."""


@dataclass(frozen=True)
class EntryRow:
    """One requested document entry.

    Attributes:
        user_id: The user (integer ≥ 1).
        document_id: The document.
        file: Path of the file to upload (relative paths resolve against ``base_dir``).
        fields: Entry fields (every extra column).
        note: Optional note.
    """

    user_id: int
    document_id: int
    file: str
    fields: dict[str, Any] = field(default_factory=dict)
    note: str | None = None

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


@dataclass
class BulkSummary:
    """What one bulk run did.

    Attributes:
        rows: Rows read.
        skipped: Rows already recorded by an earlier run (not submitted again).
        outcomes: Submitted rows by outcome (``approved``, ``pendingApproval``, ``failed``).
        failures: ``(row number, entry_key, error)`` of the failed rows.
        duration_seconds: Wall time.
        requests: Requests made to the provider.
    """

    rows: int = 0
    skipped: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[int, str, str]] = field(default_factory=list)
    duration_seconds: float = 0.0
    requests: int = 0


def rows_from_records(records: Iterable[dict[str, Any]]) -> list[EntryRow]:
    """Validate raw records (dicts of column -> value) into :class:`EntryRow`.

    Raises:
        BulkInputError: A required column is missing or an id is not an integer.
    """
    rows = []
    for number, record in enumerate(records, start=1):
        missing = [c for c in REQUIRED_COLUMNS if record.get(c) in (None, "")]
        if missing:
            raise BulkInputError(f"row {number}: missing {', '.join(missing)}")
        try:
            user_id, document_id = int(record["user_id"]), int(record["document_id"])
        except (TypeError, ValueError):
            raise BulkInputError(
                f"row {number}: user_id and document_id must be integers, got "
                f"{record['user_id']!r} and {record['document_id']!r}"
            ) from None
        extra = {
            k: v
            for k, v in record.items()
            if k not in (*REQUIRED_COLUMNS, "note") and v is not None
        }
        note = record.get("note")
        rows.append(EntryRow(user_id, document_id, str(record["file"]), extra, note or None))
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


def read_query(sql: str, database: Path | None = None) -> list[EntryRow]:
    """Rows of a DuckDB query, run read-only on the warehouse (or on ``database``); the query may
    also read files itself, e.g. ``select * from read_csv('entries.csv')``.

    Raises:
        BulkInputError: The query fails or a row is invalid.
    """
    path = database or warehouse_path()
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


def recorded_keys(pipeline: dlt.Pipeline) -> set[str]:
    """Entry keys whose entry an earlier run recorded (``approved`` or ``pendingApproval``)."""
    try:
        with pipeline.sql_client() as client:
            table = client.make_qualified_table_name(TABLE)
            placeholders = ", ".join("%s" for _ in ENTRY_STATUSES)
            with client.execute_query(
                f"select entry_key from {table} where status in ({placeholders})", *ENTRY_STATUSES
            ) as cursor:
                return {str(r[0]) for r in cursor.fetchall()}
    except Exception:  # noqa: BLE001 - no table yet (first run) or no warehouse yet
        return set()


def submit(client: ConnecteamClient, row: EntryRow, base_dir: Path) -> dict[str, Any]:
    """Upload the row's file and record its entry; return the outcome record (never raises for
    a refused row: the error is in the outcome)."""
    outcome: dict[str, Any] = {
        "entry_key": row.entry_key,
        "user_id": row.user_id,
        "document_id": row.document_id,
        "file": row.file,
        "fields": row.fields or None,
        "note": row.note,
        "submitted_at": int(time.time()),
        "status": "failed",
        "request_id": None,
        "user_document_id": None,
        "file_id": None,
        "error": None,
    }
    path = Path(row.file) if Path(row.file).is_absolute() else base_dir / row.file
    try:
        if not path.is_file():
            raise FileNotFoundError(f"file not found: {path}")
        file_id = upload_file(client, path)
        answer = put_entry(client, row.user_id, row.document_id, file_id, row.fields, row.note)
        data = answer.get("data") or {}
        outcome.update(
            status=str(data.get("status") or "unknown"),
            request_id=answer.get("requestId"),
            user_document_id=data.get("id"),
            file_id=file_id,
        )
    except (ConnecteamError, OSError) as exc:
        outcome["error"] = str(exc)[:500]
    return outcome


def run_bulk(
    rows: list[EntryRow],
    *,
    base_dir: Path | None = None,
    pipeline: dlt.Pipeline | None = None,
    client: ConnecteamClient | None = None,
    on_progress: Callable[[int, int, dict[str, Any]], None] | None = None,
) -> BulkSummary:
    """Submit every row not recorded yet and load all outcomes into
    ``connecteam.document_entries``.

    Args:
        rows: From :func:`read_csv`, :func:`read_query` or :func:`rows_from_records`.
        base_dir: Where relative file paths resolve (default: the working directory).
        pipeline: dlt pipeline of the outcomes (default: DuckDB warehouse, dataset connecteam).
        client: The provider client (default: from dlt config, like the sync).
        on_progress: Called after each row with ``(done, total, outcome)``.

    Returns:
        A :class:`BulkSummary`.
    """
    started = time.monotonic()
    base = base_dir or Path.cwd()
    pipeline = pipeline or build_pipeline(
        pipeline_name="connecteam_documents", dataset_name=DATASET_CONNECTEAM
    )
    finish_pending_loads(pipeline)
    done = recorded_keys(pipeline)
    summary = BulkSummary(rows=len(rows))
    own_client = client is None
    client = client or client_from_config()
    outcomes: list[dict[str, Any]] = []
    seen: set[str] = set()
    try:
        todo: list[tuple[int, EntryRow]] = []
        for line, row in enumerate(rows, start=1):
            if row.entry_key in done or row.entry_key in seen:
                summary.skipped += 1
            else:
                todo.append((line, row))
            seen.add(row.entry_key)
        for number, (line, row) in enumerate(todo, start=1):
            outcome = submit(client, row, base)
            outcomes.append(outcome)
            summary.outcomes[outcome["status"]] += 1
            if outcome["error"]:
                summary.failures.append((line, row.entry_key, outcome["error"]))
            if on_progress:
                on_progress(number, len(todo), outcome)
        summary.requests = client.stats.total_requests
    finally:
        if own_client:
            client.close()
    if outcomes:
        info = pipeline.run(_outcomes_resource(outcomes), loader_file_format=loader_file_format())
        info.raise_on_failed_jobs()
    summary.duration_seconds = round(time.monotonic() - started, 2)
    return summary


def _outcomes_resource(outcomes: list[dict[str, Any]]) -> Any:
    @dlt.resource(
        name=TABLE,
        primary_key="entry_key",
        write_disposition="merge",
        columns={"fields": {"data_type": "json"}, "submitted_at": {"data_type": "bigint"}},
    )
    def document_entries() -> Iterator[list[dict[str, Any]]]:
        yield outcomes

    return document_entries


def client_from_config() -> ConnecteamClient:
    """A client configured like the sync (``SOURCES__CONNECTEAM__*``)."""
    from sources.connecteam.settings import DEFAULT_BASE_URL

    def get(key: str) -> Any:
        try:
            return dlt.secrets.get(f"sources.connecteam.{key}") or dlt.config.get(
                f"sources.connecteam.{key}"
            )
        except Exception:  # noqa: BLE001 - unresolvable means unset
            return None

    return ConnecteamClient(
        str(get("base_url") or DEFAULT_BASE_URL),
        api_key=get("api_key"),
        client_id=get("client_id"),
        client_secret=get("client_secret"),
        backoff_base=float(get("backoff_base") or 1.0),
        scopes=WRITE_SCOPES,
    )
