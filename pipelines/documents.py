"""The ``documents`` job: record document entries in bulk, each row's outcome durable at once.

Rows come from a CSV file or a DuckDB query (:mod:`pipelines.entry_rows`, re-exported here),
every row's ids checked before anything is uploaded. For each row the file is uploaded, the
intent is written to the journal (:mod:`pipelines.entry_journal`), the entry is PUT, and its
outcome written to the journal the moment it is known. A process killed at any moment loses
nothing and submits nothing twice: the next run lists the users' documents to settle every row
whose PUT may have been sent (:func:`sources.connecteam.documents.find_entries`) instead of
sending it again. A row whose listed document cannot tell whether it holds the entry (no
``fileId``, no ``updatedAt``) becomes ``uncertain`` and is never sent again automatically:
:mod:`pipelines.entry_resolve` lists such rows and settles them as sent or sends them once more
when someone says so.

The outcomes (status as the provider answered it, ``requestId``, error, user document id,
``resolved_by``) land in the warehouse table ``connecteam.document_entries``, merged on the
row's ``entry_key`` (a digest of the row as given). A re-run skips rows recorded ``approved`` or
``pendingApproval``, retries ``failed`` ones, skips ``sending`` and ``uncertain`` ones (listed as
uncertain), and skips rows answered with any other status (or none, ``unknown``) unless
``retry_unexpected`` is set.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dlt

from core.project import Project
from sources.connecteam import ConnecteamClient
from sources.connecteam.config import client_from_config
from sources.connecteam.documents import (
    ENTRY_STATUSES,
    WRITE_SCOPES,
)

from .entry_journal import FAILED, SENDING, UNCERTAIN, EntryJournal
from .entry_rows import BulkInputError, EntryRow, read_csv, read_query, rows_from_records
from .entry_send import send_entry, settle_sending, submit_row
from .entry_table import earlier_outcomes, load_outcomes
from .runs import records_run
from .warehouse import DATASET_CONNECTEAM, build_pipeline, finish_pending_loads
from .writers import writes_warehouse

__all__ = [
    "BulkInputError",
    "BulkSummary",
    "EntryRow",
    "documents_pipeline",
    "journal_path",
    "read_csv",
    "read_query",
    "rows_from_records",
    "run_bulk",
    "send_entry",
]

logger = logging.getLogger("pipelines.documents")


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
            ``failed``, ``sending`` when still uncertain, ``uncertain`` when it cannot be told).
        failures: ``(row number, entry_key, error)`` of the rows that failed this run.
        uncertain: ``(row number, entry_key, error)`` of the rows whose outcome is still unknown
            (their PUT may have been sent): ``sending`` ones the next run checks, ``uncertain``
            ones no check can tell (``wfm-sync documents resolve`` settles them).
        checked: Rows of earlier runs settled by checking with the provider, by finding:
            ``recorded`` (not submitted again), ``absent`` (submitted again when in the input) or
            ``untold`` (the listing cannot tell: ``uncertain``, not submitted again).
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
    """The journal of a documents pipeline, in its pipelines folder: :data:`JOURNAL_FILE` for
    the ``default`` account's (``connecteam_documents``), ``<pipeline>.<JOURNAL_FILE>`` for
    another account's."""
    name = pipeline.pipeline_name
    file = JOURNAL_FILE if name == DOCUMENTS_PIPELINE else f"{name}.{JOURNAL_FILE}"
    return Path(pipeline.pipelines_dir) / file


DOCUMENTS_PIPELINE = f"{DATASET_CONNECTEAM}_documents"
"""The ``default`` account's documents pipeline; another's is ``<its dataset>_documents``."""


def documents_pipeline(project: Project) -> dlt.Pipeline:
    """The dlt pipeline of the outcomes of ``project``'s account: its warehouse, the account's
    dataset (``connecteam``, ``connecteam_<account>``), pipeline ``<dataset>_documents``."""
    return build_pipeline(
        pipeline_name=f"{project.dataset}_documents", dataset_name=project.dataset,
        project=project,
    )  # fmt: skip


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
    files_under: Path | None = None,
    on_progress: Callable[[int, int, dict[str, Any]], None] | None = None,
    allow_insecure: bool = False,
    project: Project,
) -> BulkSummary:
    """Settle what earlier runs left uncertain, submit every row not recorded yet, and load all
    outcomes into ``connecteam.document_entries``.

    Per row (:func:`pipelines.entry_send.submit_row`, after the journal's ``sending`` rows are
    settled): file uploaded, intent committed, ``PUT /documents/v1/users/{userId}/documents/
    {documentId}/entry``, outcome committed. Logs a run (job ``documents``); holds the writer
    lock only to start the journal and load the outcomes, never while submitting (hours).

    Args:
        rows: From :func:`read_csv`, :func:`read_query` or :func:`rows_from_records`.
        base_dir: Where relative file paths resolve (default: the working directory).
        pipeline: dlt pipeline of the outcomes (default: the warehouse, dataset connecteam).
        client: The provider client (default: from dlt config, like the sync).
        journal: The journal file (default: :func:`journal_path`).
        retry_unexpected: Submit again rows recorded with a status other than ``approved`` or
            ``pendingApproval`` (or none).
        files_under: Upload only files under this folder (links followed); a row whose file
            is elsewhere fails with the reason and the bulk goes on. ``None``: any path.
        on_progress: Called after each submitted row with ``(done, total, outcome row)``.
        allow_insecure: The default client may use plain ``http://`` elsewhere (a flag).
        project: Its warehouse, its source configuration (the account) and its instant.

    Returns:
        A :class:`BulkSummary`.

    Raises:
        JournalBusyError: Another bulk is running on the same journal.
        WarehouseBusyError: Another job held the DuckDB warehouse past the writer timeout.
        ConnecteamConfigError: No credentials, or ``http://`` elsewhere without allow_insecure.
    """
    started, base = time.monotonic(), base_dir or Path.cwd()
    pipeline = pipeline or documents_pipeline(project)
    summary = BulkSummary(rows=len(rows))
    with EntryJournal.open(journal or journal_path(pipeline)) as book:
        _start(pipeline, book, project=project)
        try:
            with _writing_client(client, allow_insecure, project) as writer:
                settle_sending(writer, book, summary.checked)
                todo = _plan(rows, book, summary, retry_unexpected)
                _submit_all(writer, book, todo, summary, base, files_under, on_progress)
                summary.requests = writer.stats.total_requests
        finally:
            load_outcomes(pipeline, book, project=project)
        _count_unexpected(rows, book, summary)
    summary.duration_seconds = round(time.monotonic() - started, 2)
    return summary


@contextmanager
def _writing_client(
    client: ConnecteamClient | None, allow_insecure: bool, project: Project
) -> Iterator[ConnecteamClient]:
    """``client``, or one with :data:`WRITE_SCOPES` of ``project``'s source configuration,
    closed after the block."""
    if client is not None:
        yield client
        return
    with client_from_config(
        project.source.arguments(), WRITE_SCOPES, now=project.now, allow_insecure=allow_insecure
    ) as own:
        yield own


def _submit_all(
    client: ConnecteamClient,
    book: EntryJournal,
    todo: list[tuple[int, EntryRow]],
    summary: BulkSummary,
    base: Path,
    files_under: Path | None,
    on_progress: Callable[[int, int, dict[str, Any]], None] | None,
) -> None:
    """Submit each ``(CSV line, row)`` of ``todo`` in turn (:func:`_submit`), counting its
    outcome in ``summary`` (failed and uncertain rows listed with their line) and calling
    ``on_progress(done, total, outcome)`` after each."""
    for number, (line, row) in enumerate(todo, start=1):
        outcome = submit_row(client, book, row, base, files_under)
        summary.outcomes[outcome["status"]] += 1
        if outcome["status"] == FAILED:
            summary.failures.append((line, row.entry_key, outcome["error"] or ""))
        elif outcome["status"] in (SENDING, UNCERTAIN):
            summary.uncertain.append((line, row.entry_key, outcome["error"] or ""))
        if on_progress:
            on_progress(number, len(todo), outcome)


def _count_unexpected(rows: list[EntryRow], book: EntryJournal, summary: BulkSummary) -> None:
    """Count, per status, the rows whose journal entry holds a status the provider's
    enumeration does not name (nor ours: failed, sending, uncertain)."""
    for row in {r.entry_key: r for r in rows}.values():
        state = book.get(row.entry_key)
        status = state["status"] if state else None
        if status is not None and status not in (*ENTRY_STATUSES, FAILED, SENDING, UNCERTAIN):
            summary.unexpected[status] += 1


@writes_warehouse("documents")
def _start(pipeline: dlt.Pipeline, book: EntryJournal, *, project: Project) -> None:
    """Finish a load an interrupted run left, and start a journal new to this warehouse from
    the outcomes the warehouse holds (under ``project``'s writer lock)."""
    finish_pending_loads(pipeline)
    if not book.seeded:
        seeded = book.seed(earlier_outcomes(pipeline))
        if seeded:
            logger.info("journal started from %d outcomes in the warehouse", seeded)


def _plan(
    rows: list[EntryRow],
    book: EntryJournal,
    summary: BulkSummary,
    retry_unexpected: bool,
) -> list[tuple[int, EntryRow]]:
    """The rows to submit, with their row numbers; counts the skipped ones in ``summary`` and
    lists the ``sending`` and ``uncertain`` ones (never submitted here) in its ``uncertain``."""
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
        elif status in (SENDING, UNCERTAIN):
            summary.uncertain.append((line, key, (state or {}).get("error") or "not checked"))
        elif status in (None, FAILED) or retry_unexpected:
            todo.append((line, row))
    return todo
