"""Sending one document entry with its outcome durable at once, and settling the entries an
interrupted run may have sent (:mod:`pipelines.documents` runs them for a bulk,
:mod:`pipelines.entry_resolve` for the rows someone settles by hand).

The intent is written to the journal before the PUT leaves and the outcome the moment it is
known; a row whose PUT may have been sent is settled by listing its user's documents
(``GET /documents/v1/user-documents?userIds=...``), never by sending it again.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import Any

from core import clock
from sources.connecteam import ConnecteamClient, ConnecteamError
from sources.connecteam.documents import (
    EntryUncertainError,
    EntryUntoldError,
    find_entries,
    is_our_entry,
    listed_result,
    record_entry,
    upload_file,
)

from .entry_journal import COLUMNS, FAILED, SENDING, UNCERTAIN, EntryJournal
from .entry_rows import EntryRow

logger = logging.getLogger("pipelines.documents")

RESOLVE = "settle it with `wfm-sync documents resolve --sent` or `--resend`"
UNTOLD = (
    "the listed document shows neither fileId nor updatedAt: whether it holds this entry "
    f"cannot be told, so it is not sent again; {RESOLVE}"
)


def settle_sending(client: ConnecteamClient, book: EntryJournal, checked: Counter[str]) -> None:
    """Settle every ``sending`` row of the journal by listing its user's documents: found (our
    ``fileId``, or updated since the intent) -> the listed status; absent (not listed, another
    ``fileId``, updated before the intent) -> ``failed`` (never recorded; submitted again when
    its bulk runs); listed without ``fileId`` and ``updatedAt`` -> ``uncertain`` (never submitted
    again automatically). A failed check leaves the rows ``sending`` (its error in ``error``);
    nothing is raised. Counts the findings in ``checked`` (``recorded``, ``absent``,
    ``untold``)."""
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
        ours = (
            None
            if found is None
            else is_our_entry(found, row["file_id"] or "", row["submitted_at"])
        )
        if found is not None and ours:
            result = listed_result(found)
            book.write({
                **row, "status": result.status, "user_document_id": result.user_document_id,
                "error": None, "resolved_by": "check", "recorded_at": now,
            })  # fmt: skip
            checked["recorded"] += 1
        elif found is not None and ours is None:
            book.write({**row, "status": UNCERTAIN, "error": UNTOLD, "recorded_at": now})
            checked["untold"] += 1
        else:
            book.write({
                **row, "status": FAILED, "resolved_by": "check", "recorded_at": now,
                "error": "interrupted before the provider recorded the entry (checked: absent)",
            })  # fmt: skip
            checked["absent"] += 1
    logger.info(
        "checked %d interrupted entries: %d recorded, %d absent, %d cannot be told",
        len(pending), checked["recorded"], checked["absent"],
        checked["untold"],
    )  # fmt: skip


def submit_row(
    client: ConnecteamClient,
    book: EntryJournal,
    row: EntryRow,
    base_dir: Path,
    files_under: Path | None,
) -> dict[str, Any]:
    """Upload the row's file (``POST generate-upload-url``, the pre-signed PUT, ``PUT
    complete-upload``; refused when outside ``files_under``), then :func:`send_entry`; return
    the journal row (never raises for a refused or uncertain row: that is in the row)."""
    record: dict[str, Any] = dict.fromkeys(COLUMNS)
    record.update(
        entry_key=row.entry_key, user_id=row.user_id, document_id=row.document_id,
        file=row.file, fields=row.fields or None, note=row.note,
    )  # fmt: skip
    path = Path(row.file) if Path(row.file).is_absolute() else base_dir / row.file
    try:
        if files_under is not None and not path.resolve().is_relative_to(files_under.resolve()):
            raise PermissionError(
                f"file {row.file} is outside the CSV's folder {files_under}: only files under "
                "it are uploaded; move it there or pass --allow-any-path"
            )
        if not path.is_file():
            raise FileNotFoundError(f"file not found: {path}")
        record["file_id"] = upload_file(client, path)
    except (ConnecteamError, OSError) as exc:
        record.update(status=FAILED, error=str(exc)[:1000], recorded_at=int(clock.now()))
        book.write(record)
        return record
    return send_entry(client, book, record)


def send_entry(
    client: ConnecteamClient, book: EntryJournal, record: dict[str, Any]
) -> dict[str, Any]:
    """Commit the intent of a journal row whose file is uploaded (``file_id`` set), PUT the entry
    (:func:`sources.connecteam.documents.record_entry`), commit the outcome.

    Args:
        client: An authenticated client (:data:`~sources.connecteam.documents.WRITE_SCOPES`).
        book: The open journal.
        record: The journal row (keys of :data:`~pipelines.entry_journal.COLUMNS`).

    Returns:
        The journal row as committed: the provider's status; ``failed`` (refused, or never
        sent); ``sending`` (no answer and no check could settle it; the next bulk checks);
        ``uncertain`` (no answer and the listing cannot tell).
    """
    record = {**record, "error": None, "request_id": None, "resolved_by": None}
    sent_at = int(clock.now())
    record.update(status=SENDING, submitted_at=sent_at, recorded_at=None)
    book.write(record)  # the intent, on disk before the PUT leaves
    try:
        result = record_entry(
            client, int(record["user_id"]), int(record["document_id"]), record["file_id"],
            record["fields"], record["note"], sent_at=sent_at,
        )  # fmt: skip
    except EntryUntoldError as exc:
        record.update(
            status=UNCERTAIN, error=f"{exc}; {RESOLVE}"[:1000], recorded_at=int(clock.now())
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
