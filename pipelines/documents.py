"""The ``documents`` job: record document entries in bulk, each row's outcome durable at once.

Rows come from a CSV file or a DuckDB query (:mod:`pipelines.entry_rows`, re-exported here),
every row's ids checked before anything is uploaded. For each row the file is uploaded, the
intent is written to the journal (:mod:`pipelines.entry_journal`), the entry is PUT, and its
outcome written to the journal the moment it is known. A process killed at any moment loses
nothing and submits nothing twice: the next run lists the users' documents to settle every row
whose PUT may have been sent (:func:`sources.connecteam.documents.find_entries`) instead of
sending it again.

The outcomes (status as the provider answered it, ``requestId``, error, user document id,
``resolved_by``) land in the warehouse table ``connecteam.document_entries``, merged on the
row's ``entry_key`` (a digest of the row as given). A re-run skips rows recorded ``approved`` or
``pendingApproval``, retries ``failed`` ones, and skips rows answered with any other status (or
none, ``unknown``) unless ``retry_unexpected`` is set.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dlt
import orjson

from sources import clock
from sources.connecteam import ConnecteamClient, ConnecteamError
from sources.connecteam.config import client_from_config
from sources.connecteam.documents import (
    ENTRY_STATUSES,
    WRITE_SCOPES,
    EntryUncertainError,
    find_entries,
    is_our_entry,
    listed_result,
    record_entry,
    upload_file,
)

from .entry_journal import COLUMNS, FAILED, SENDING, EntryJournal
from .entry_rows import BulkInputError, EntryRow, read_csv, read_query, rows_from_records
from .runs import records_run
from .warehouse import (
    DATASET_CONNECTEAM,
    build_pipeline,
    finish_pending_loads,
    loader_file_format,
    writes_warehouse,
)

__all__ = [
    "BulkInputError",
    "BulkSummary",
    "EntryRow",
    "journal_path",
    "read_csv",
    "read_query",
    "rows_from_records",
    "run_bulk",
]

logger = logging.getLogger("pipelines.documents")

TABLE = "document_entries"
JOURNAL_FILE = "document_entries.journal.sqlite3"
"""The journal's file name, in the dlt pipelines folder (beside the warehouse by default)."""


@dataclass
class BulkSummary:
    """What one bulk run did.

    Attributes:
        rows: Rows read.
        skipped: Rows recorded ``approved`` or ``pendingApproval`` by an earlier run (or
            repeated in the input), not submitted again.
        unexpected: Rows of the input whose recorded status is neither of the documented two
            (by status, ``unknown`` for an answer without one), after this run.
        outcomes: Rows submitted or settled this run, by outcome (the provider's status,
            ``failed``, ``sending`` when still uncertain).
        failures: ``(row number, entry_key, error)`` of the rows that failed this run.
        uncertain: ``(row number, entry_key, error)`` of the rows whose outcome is still unknown
            (their PUT may have been sent; the next run checks them).
        checked: Rows of earlier runs settled by checking with the provider, by finding:
            ``recorded`` (not submitted again) or ``absent`` (submitted again when in the input).
        duration_seconds: Wall time.
        requests: Requests made to the provider.
    """

    rows: int = 0
    skipped: int = 0
    unexpected: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[int, str, str]] = field(default_factory=list)
    uncertain: list[tuple[int, str, str]] = field(default_factory=list)
    checked: Counter[str] = field(default_factory=Counter)
    duration_seconds: float = 0.0
    requests: int = 0


def journal_path(pipeline: dlt.Pipeline) -> Path:
    """The journal of a documents pipeline: :data:`JOURNAL_FILE` in its pipelines folder."""
    return Path(pipeline.pipelines_dir) / JOURNAL_FILE


def _describe_bulk(summary: BulkSummary) -> dict[str, Any]:
    """The run log's ``details`` of a bulk: rows read, skipped, outcomes, checks, requests."""
    return {
        "rows": summary.rows,
        "skipped": summary.skipped,
        "outcomes": dict(summary.outcomes),
        "checked": dict(summary.checked),
        "requests": summary.requests,
    }


def _bulk_problem(summary: BulkSummary) -> str | None:
    """Rows that failed or are still uncertain make the run ``failed`` in the run log (the
    command exits 1 for them too)."""
    if not summary.failures and not summary.uncertain:
        return None
    return f"{len(summary.failures)} row(s) failed, {len(summary.uncertain)} uncertain"


@records_run("documents", _describe_bulk, _bulk_problem)
def run_bulk(
    rows: list[EntryRow],
    *,
    base_dir: Path | None = None,
    pipeline: dlt.Pipeline | None = None,
    client: ConnecteamClient | None = None,
    journal: Path | None = None,
    retry_unexpected: bool = False,
    resubmit_uncertain: bool = False,
    on_progress: Callable[[int, int, dict[str, Any]], None] | None = None,
    allow_insecure: bool = False,
) -> BulkSummary:
    """Settle what earlier runs left uncertain, submit every row not recorded yet, and load all
    outcomes into ``connecteam.document_entries``.

    Per row: the file is uploaded (``POST generate-upload-url``, the pre-signed PUT, ``PUT
    complete-upload``), the intent is committed to the journal (status ``sending``), the entry
    is PUT (``PUT /documents/v1/users/{userId}/documents/{documentId}/entry``, never re-sent
    blindly: :func:`sources.connecteam.documents.record_entry`), and the outcome is committed.
    Before submitting, every ``sending`` row of the journal (a run killed between its PUT and its
    outcome) is settled by listing its user's documents
    (``GET /documents/v1/user-documents?userIds=...``).

    Like the other jobs, each run appends a line to the run log (job ``documents``; ``failed``
    when a row failed or stays uncertain) and writes the warehouse under the writer lock
    (:func:`pipelines.warehouse.writes_warehouse`): while it starts the journal from the
    warehouse and while it loads the outcomes, not while it submits entries (at the provider's
    pace a bulk takes hours, and the fold every five minutes must not wait that long).

    Args:
        rows: From :func:`read_csv`, :func:`read_query` or :func:`rows_from_records`.
        base_dir: Where relative file paths resolve (default: the working directory).
        pipeline: dlt pipeline of the outcomes (default: the warehouse, dataset connecteam).
        client: The provider client (default: from dlt config, like the sync).
        journal: The journal file (default: :func:`journal_path`).
        retry_unexpected: Submit again rows recorded with a status other than ``approved`` or
            ``pendingApproval`` (or none).
        resubmit_uncertain: Submit again rows whose outcome no check could settle (e.g. an
            OAuth grant that cannot list user documents); the PUT replaces the entry of (user,
            document), so this costs a request but records no second entry.
        on_progress: Called after each submitted row with ``(done, total, outcome row)``.
        allow_insecure: Let the default client use a plain ``http://`` base URL to another
            machine (``--allow-insecure``; see
            :func:`sources.connecteam.config.require_secure_base_url`).

    Returns:
        A :class:`BulkSummary`.

    Raises:
        JournalBusyError: Another bulk is running on the same journal.
        WarehouseBusyError: Another job held the DuckDB warehouse past the writer timeout.
        ConnecteamConfigError: No credentials configured, or a plain ``http://`` base URL to
            another machine without ``allow_insecure``.
    """
    started = time.monotonic()
    base = base_dir or Path.cwd()
    pipeline = pipeline or build_pipeline(
        pipeline_name="connecteam_documents", dataset_name=DATASET_CONNECTEAM
    )
    summary = BulkSummary(rows=len(rows))
    with EntryJournal.open(journal or journal_path(pipeline)) as book:
        _start(pipeline, book)
        own_client = client is None
        try:
            client = client or client_from_config(WRITE_SCOPES, allow_insecure=allow_insecure)
            try:
                _settle_sending(client, book, summary)
                todo = _plan(rows, book, summary, retry_unexpected, resubmit_uncertain)
                for number, (line, row) in enumerate(todo, start=1):
                    outcome = _submit(client, book, row, base)
                    summary.outcomes[outcome["status"]] += 1
                    if outcome["status"] == FAILED:
                        summary.failures.append((line, row.entry_key, outcome["error"] or ""))
                    elif outcome["status"] == SENDING:
                        summary.uncertain.append((line, row.entry_key, outcome["error"] or ""))
                    if on_progress:
                        on_progress(number, len(todo), outcome)
                summary.requests = client.stats.total_requests
            finally:
                if own_client:
                    client.close()
        finally:
            _load(pipeline, book)
        for row in {r.entry_key: r for r in rows}.values():
            state = book.get(row.entry_key)
            status = state["status"] if state else None
            if status is not None and status not in (*ENTRY_STATUSES, FAILED, SENDING):
                summary.unexpected[status] += 1
    summary.duration_seconds = round(time.monotonic() - started, 2)
    return summary


@writes_warehouse("documents")
def _start(pipeline: dlt.Pipeline, book: EntryJournal) -> None:
    """Finish a load an interrupted run left, and start a journal new to this warehouse from
    the outcomes the warehouse holds."""
    finish_pending_loads(pipeline)
    if not book.seeded:
        seeded = book.seed(_earlier_outcomes(pipeline))
        if seeded:
            logger.info("journal started from %d outcomes in the warehouse", seeded)


def _plan(
    rows: list[EntryRow],
    book: EntryJournal,
    summary: BulkSummary,
    retry_unexpected: bool,
    resubmit_uncertain: bool,
) -> list[tuple[int, EntryRow]]:
    """The rows to submit, with their row numbers; counts the skipped ones in ``summary``."""
    todo: list[tuple[int, EntryRow]] = []
    seen: set[str] = set()
    for line, row in enumerate(rows, start=1):
        key = row.entry_key
        if key in seen:
            summary.skipped += 1
            continue
        seen.add(key)
        state = book.get(key)
        status = state["status"] if state else None
        if status in ENTRY_STATUSES:
            summary.skipped += 1
        elif status == SENDING and not resubmit_uncertain:
            summary.uncertain.append((line, key, (state or {}).get("error") or "not checked"))
        elif status in (None, FAILED, SENDING) or retry_unexpected:
            todo.append((line, row))
    return todo


def _settle_sending(client: ConnecteamClient, book: EntryJournal, summary: BulkSummary) -> None:
    """Settle every ``sending`` row of the journal by listing its user's documents: found (our
    ``fileId``, or updated since the intent) -> the listed status; absent -> ``failed`` (never
    recorded; submitted again when its bulk runs). A failed check leaves the rows ``sending``."""
    pending = book.sending()
    if not pending:
        return
    logger.info("checking %d entries an interrupted run may have sent", len(pending))
    try:
        listed = find_entries(client, [int(r["user_id"]) for r in pending])
    except ConnecteamError as exc:
        logger.warning("could not check the interrupted entries: %s", exc)
        for row in pending:
            book.write({**row, "error": f"the check failed: {exc}"[:500]})
        return
    now = int(clock.now())
    for row in pending:
        found = listed.get((int(row["user_id"]), int(row["document_id"])))
        if found is not None and is_our_entry(found, row["file_id"] or "", row["submitted_at"]):
            result = listed_result(found)
            book.write({
                **row, "status": result.status, "user_document_id": result.user_document_id,
                "error": None, "resolved_by": "check", "recorded_at": now,
            })  # fmt: skip
            summary.checked["recorded"] += 1
        else:
            book.write({
                **row, "status": FAILED, "resolved_by": "check", "recorded_at": now,
                "error": "interrupted before the provider recorded the entry (checked: absent)",
            })  # fmt: skip
            summary.checked["absent"] += 1
    logger.info(
        "checked %d interrupted entries: %d recorded, %d absent",
        len(pending), summary.checked["recorded"], summary.checked["absent"],
    )  # fmt: skip


def _submit(
    client: ConnecteamClient, book: EntryJournal, row: EntryRow, base_dir: Path
) -> dict[str, Any]:
    """Upload the row's file, commit the intent, PUT the entry, commit the outcome; return the
    journal row (never raises for a refused or uncertain row: that is in the row)."""
    record: dict[str, Any] = dict.fromkeys(COLUMNS)
    record.update(
        entry_key=row.entry_key, user_id=row.user_id, document_id=row.document_id,
        file=row.file, fields=row.fields or None, note=row.note,
    )  # fmt: skip
    path = Path(row.file) if Path(row.file).is_absolute() else base_dir / row.file
    try:
        if not path.is_file():
            raise FileNotFoundError(f"file not found: {path}")
        file_id = upload_file(client, path)
    except (ConnecteamError, OSError) as exc:
        record.update(status=FAILED, error=str(exc)[:1000], recorded_at=int(clock.now()))
        book.write(record)
        return record
    sent_at = int(clock.now())
    record.update(status=SENDING, file_id=file_id, submitted_at=sent_at)
    book.write(record)  # the intent, on disk before the PUT leaves
    try:
        result = record_entry(
            client, row.user_id, row.document_id, file_id, row.fields, row.note, sent_at=sent_at
        )
    except EntryUncertainError as exc:
        record.update(error=str(exc)[:1000])
    except ConnecteamError as exc:  # refused (4xx) or never sent: not recorded
        record.update(status=FAILED, error=str(exc)[:1000], recorded_at=int(clock.now()))
    else:
        record.update(
            status=result.status, request_id=result.request_id,
            user_document_id=result.user_document_id, resolved_by=result.resolved_by,
            recorded_at=int(clock.now()),
        )  # fmt: skip
    book.write(record)
    return record


def _earlier_outcomes(pipeline: dlt.Pipeline) -> list[dict[str, Any]]:
    """Outcomes in the warehouse table (written by a version without the journal); none when
    the table does not exist yet.

    Raises:
        Exception: Any other failure to read it (a bulk must not forget recorded entries).
    """
    from dlt.destinations.exceptions import DatabaseUndefinedRelation

    try:
        with pipeline.sql_client() as client:
            table = client.make_qualified_table_name(TABLE)
            with client.execute_query(f"select * from {table}") as cursor:
                names = [d[0] for d in cursor.description]
                found = [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]
    except DatabaseUndefinedRelation:
        return []
    rows = []
    for row in found:
        if not row.get("entry_key") or not row.get("status") or row.get("user_id") is None:
            continue
        fields = row.get("fields")
        rows.append({
            **{name: row.get(name) for name in COLUMNS},
            "fields": orjson.loads(fields) if isinstance(fields, str) and fields else fields,
        })  # fmt: skip
    return rows


@writes_warehouse("documents")
def _load(pipeline: dlt.Pipeline, book: EntryJournal) -> None:
    """Load the journal's changed rows into ``connecteam.document_entries`` (merge on
    ``entry_key``) and clear their dirty mark."""
    rows = book.dirty()
    if not rows:
        return
    info = pipeline.run(_outcomes_resource(rows), loader_file_format=loader_file_format())
    info.raise_on_failed_jobs()
    book.mark_loaded(rows)


def _outcomes_resource(outcomes: list[dict[str, Any]]) -> Any:
    @dlt.resource(
        name=TABLE,
        primary_key="entry_key",
        write_disposition="merge",
        columns={
            "fields": {"data_type": "json"},
            "submitted_at": {"data_type": "bigint"},
            "recorded_at": {"data_type": "bigint"},
            "request_id": {"data_type": "text"},
            "error": {"data_type": "text"},
            "resolved_by": {"data_type": "text"},
            "file_id": {"data_type": "text"},
            "note": {"data_type": "text"},
        },
    )
    def document_entries() -> Iterator[list[dict[str, Any]]]:
        yield outcomes

    return document_entries
