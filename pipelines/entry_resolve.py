"""Settling document entries whose outcome is not known, by hand.

A bulk never sends again an entry whose PUT may have reached the provider: rows ``sending`` (the
next bulk checks them with the provider) and ``uncertain`` (the provider's listing cannot tell
whether it holds the entry) stay in the journal (:mod:`pipelines.entry_journal`) until settled.
:func:`unsettled_entries` lists them (``wfm-sync documents status``); :func:`resolve_entries`
settles them as someone decided after looking at the provider's app (``wfm-sync documents
resolve``): ``sent`` marks them recorded without a request (status ``unknown``, ``resolved_by``
``operator``), ``resend`` sends each ``uncertain`` PUT once more with its uploaded file (the PUT
replaces the entry of (user, document)); a ``sending`` row is first checked with the provider as
a bulk checks it, and sent only when named by its key and found absent. The outcomes are loaded
into ``connecteam.document_entries``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dlt

from core import clock
from core.project import Project
from sources.connecteam import ConnecteamClient
from sources.connecteam.config import client_from_config
from sources.connecteam.documents import WRITE_SCOPES

from .documents import documents_pipeline, journal_path
from .entry_journal import FAILED, SENDING, UNKNOWN, UNSETTLED, EntryJournal, unsettled_rows
from .entry_send import send_entry, settle_sending
from .entry_table import load_outcomes

OPERATOR = "operator"
"""``resolved_by`` of a row settled as sent by hand."""
MIN_PREFIX = 8
"""Shortest entry-key prefix :func:`resolve_entries` accepts for a key."""


class ResolveInputError(ValueError):
    """The entry keys given do not name rows waiting to be settled (unknown, ambiguous, or
    already settled)."""


@dataclass
class ResolveSummary:
    """What one :func:`resolve_entries` did.

    Attributes:
        settled: Rows settled, by the status they now hold (``unknown`` for ``sent``; the
            provider's status, ``failed``, ``sending`` or ``uncertain`` for ``resend``).
        rows: The journal rows as they now are, in the order settled.
        requests: Requests made to the provider (0 for ``sent``).
    """

    settled: dict[str, int] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    requests: int = 0


def unsettled_entries(project: Project, journal: Path | None = None) -> list[dict[str, Any]]:
    """Journal rows whose outcome is not known (``sending`` or ``uncertain``), oldest intent
    first, read without waiting for a running bulk.

    Args:
        project: Whose warehouse's journal.
        journal: The journal file (default: :func:`pipelines.documents.journal_path` of
            ``project``'s warehouse).

    Returns:
        Rows with the keys of :data:`pipelines.entry_journal.COLUMNS` (``submitted_at`` epoch
        seconds, UTC); none when no bulk ever ran.
    """
    return unsettled_rows(journal or journal_path(documents_pipeline(project)))


def _mark_sent(book: EntryJournal, chosen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Record each of ``chosen`` as sent with no request (status ``unknown``, resolved by the
    operator, now); the rows written."""
    now = int(clock.now())
    settled = [{**row, "status": UNKNOWN, "resolved_by": OPERATOR, "error": None,
                "recorded_at": now} for row in chosen]  # fmt: skip
    for row in settled:
        book.write(row)
    return settled


def resolve_entries(
    keys: list[str] | None,
    *,
    resend: bool,
    pipeline: dlt.Pipeline | None = None,
    client: ConnecteamClient | None = None,
    journal: Path | None = None,
    project: Project,
) -> ResolveSummary:
    """Settle unsettled entries: mark them sent, or send each once more.

    Args:
        keys: Entry keys (or unique prefixes of at least :data:`MIN_PREFIX` characters) of
            ``sending`` or ``uncertain`` rows; ``None``: every such row.
        resend: ``True``: PUT each ``uncertain`` entry again with its uploaded file (one
            request each when answered; a 5xx is checked as a bulk does, never re-sent
            blindly). ``sending`` rows are first checked with the provider's listing as a bulk
            does (:func:`pipelines.entry_send.settle_sending`) and never sent by ``--all``; one
            named by its key is sent only when the check finds it absent. ``False``: mark
            each recorded without any request (status ``unknown``, ``resolved_by`` ``operator``).
        pipeline: dlt pipeline of the outcomes (default: the warehouse, dataset connecteam).
        client: The provider client for ``resend`` (default: the project's account).
        journal: The journal file (default: :func:`pipelines.documents.journal_path`).
        project: The warehouse, and the account ``resend`` writes to.

    Returns:
        A :class:`ResolveSummary`.

    Raises:
        ResolveInputError: A key names no unsettled row, or more than one.
        JournalBusyError: A bulk is running on the same journal.
        WarehouseBusyError: Another job held the DuckDB warehouse past the writer timeout.
        ConnecteamConfigError: ``resend`` without credentials configured.
    """
    pipeline = pipeline or documents_pipeline(project)
    summary = ResolveSummary()
    with EntryJournal.open(journal or journal_path(pipeline)) as book:
        chosen = _choose(book.unsettled(), keys)
        if not chosen:
            return summary
        own_client = resend and client is None
        try:
            if resend:
                client = client or client_from_config(
                    project.source.arguments(), WRITE_SCOPES, now=project.now
                )
                summary.rows.extend(_resend(client, book, chosen, named=keys is not None))
                summary.requests = client.stats.total_requests
            else:
                summary.rows.extend(_mark_sent(book, chosen))
        finally:
            if own_client and client is not None:
                client.close()
            load_outcomes(pipeline, book, project=project)
    for row in summary.rows:
        summary.settled[row["status"]] = summary.settled.get(row["status"], 0) + 1
    return summary


def _resend(
    client: ConnecteamClient, book: EntryJournal, chosen: list[dict[str, Any]], named: bool
) -> list[dict[str, Any]]:
    """Send ``chosen`` rows once more, never one the provider may already hold: ``sending``
    rows (whose PUT may have landed) are checked first (:func:`settle_sending`) and sent only
    when ``named`` and the check found them absent; the rows as they now are."""
    if any(row["status"] == SENDING for row in chosen):
        settle_sending(client, book, Counter())
    out = []
    for row in chosen:
        now = book.get(row["entry_key"]) or row
        if row["status"] != SENDING or (named and now["status"] == FAILED):
            out.append(send_entry(client, book, now))
        else:  # recorded, still unknown, or the check failed: not sent
            out.append(now)
    return out


def _choose(rows: list[dict[str, Any]], keys: list[str] | None) -> list[dict[str, Any]]:
    """The rows ``keys`` name (all when ``None``), in the order of ``rows``.

    Raises:
        ResolveInputError: A key matches no row, or more than one.
    """
    if keys is None:
        return rows
    picked: dict[str, dict[str, Any]] = {}
    problems = []
    for key in keys:
        matches = [
            r for r in rows
            if r["entry_key"] == key
            or (len(key) >= MIN_PREFIX and r["entry_key"].startswith(key))
        ]  # fmt: skip
        if len(matches) == 1:
            picked[matches[0]["entry_key"]] = matches[0]
        else:
            problems.append(f"{key} ({'ambiguous' if matches else 'no such row'})")
    if problems:
        raise ResolveInputError(
            f"not entries waiting to be settled ({' or '.join(UNSETTLED)}): "
            f"{', '.join(problems)}; `wfm-sync documents status` lists them"
        )
    return [r for r in rows if r["entry_key"] in picked]
