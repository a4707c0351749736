"""The ``webhooks`` dlt source: reads the durable inbox and loads events into dataset ``webhooks``.

Resources:

``events``
    One row per delivered event, insert-only on ``event_key`` (``requestId``, else a hash of the
    body): ``event_key, event_type, family, is_known_type, activity_type, company,
    event_timestamp`` (UTC timestamp), ``received_at`` (UTC timestamp), ``webhook_version``,
    ``inbox_id`` and ``payload`` (the raw body as JSON).
``quarantine``
    Every refused body (malformed or oversized): ``quarantine_key, received_at, status_code,
    reason, content_type, body_bytes, is_truncated, body`` (raw bytes) and ``body_text``.

Rows are read in ``inbox_id`` order, up to a snapshot bound, as Arrow tables. The ids read are
collected in a :class:`FoldLedger` so the fold job can mark them folded after the load commits;
insert-only loading makes a re-read after an interruption harmless.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import dlt
import pyarrow as pa
from dlt.common.schema.typing import TMergeDispositionDict
from dlt.sources import DltResource

from ..arrow_hints import quiet_arrow_hint_warnings
from ..progress import Progress
from .events import CATALOGUE, FAMILIES, UNKNOWN_FAMILY, read_envelope
from .inbox import DEFAULT_INBOX_URL, Inbox

__all__ = [
    "CATALOGUE",
    "DEFAULT_INBOX_URL",
    "FAMILIES",
    "UNKNOWN_FAMILY",
    "FoldLedger",
    "Inbox",
    "read_envelope",
    "webhooks_source",
]

INSERT_ONLY: TMergeDispositionDict = {"disposition": "merge", "strategy": "insert-only"}


@dataclass
class FoldLedger:
    """What one fold read from the inbox.

    Attributes:
        inbox_ids: ``inbox_events.inbox_id`` of every event read.
        quarantine_ids: ``inbox_quarantine.quarantine_id`` of every refused body read.
        families: Events read per family.
    """

    inbox_ids: list[int] = field(default_factory=list)
    quarantine_ids: list[int] = field(default_factory=list)
    families: Counter[str] = field(default_factory=Counter)


@dlt.source(name="webhooks", max_table_nesting=0)
def webhooks_source(
    inbox: Inbox | None = None,
    inbox_url: str = DEFAULT_INBOX_URL,
    batch_size: int = 100_000,
    upto_id: int | None = None,
    ledger: FoldLedger | None = None,
) -> list[DltResource]:
    """Events and quarantined bodies of the webhook inbox not yet folded.

    Args:
        inbox: An open :class:`Inbox`; default one opened on ``inbox_url``.
        inbox_url: SQLAlchemy URL (``WEBHOOKS__INBOX_URL`` through the fold job).
        batch_size: Inbox rows per Arrow table.
        upto_id: Read no event with a larger ``inbox_id`` (so a fold ends while events arrive).
        ledger: Filled with the ids read.

    Returns:
        The resources ``events`` and ``quarantine``.
    """
    box = inbox or Inbox(inbox_url)
    book = ledger if ledger is not None else FoldLedger()
    return [events(box, batch_size, upto_id, book), quarantine(box, book)]


def events(inbox: Inbox, batch_size: int, upto_id: int | None, ledger: FoldLedger) -> DltResource:
    """``events``: the inbox's unfolded events as Arrow tables, insert-only on ``event_key``."""

    @dlt.resource(
        name="events",
        primary_key="event_key",
        write_disposition=INSERT_ONLY,
        columns={"payload": {"data_type": "json"}},
    )
    def _events() -> Iterator[pa.Table]:
        emitted = False
        progress = Progress("webhook events", unit="events", pages_unit="batches", logger=logger)
        for rows in progress.track(inbox.unfolded_events(batch_size, upto_id)):
            ledger.inbox_ids.extend(r[0] for r in rows)
            ledger.families.update(r[3] for r in rows)
            emitted = True
            yield event_batch(rows)
        if not emitted:  # an empty batch still creates the table for the models downstream
            yield event_batch([])
        progress.done(" read from the inbox")

    return _events


logger = logging.getLogger("sources.webhooks")

# ``payload`` travels as JSON text in Arrow, declared ``json`` in the hints: intentional
quiet_arrow_hint_warnings("events")

EVENT_SCHEMA = pa.schema(
    [
        ("event_key", pa.string()),
        ("event_type", pa.string()),
        ("family", pa.string()),
        ("is_known_type", pa.bool_()),
        ("activity_type", pa.string()),
        ("company", pa.string()),
        ("event_timestamp", pa.timestamp("us", tz="UTC")),
        ("received_at", pa.timestamp("us", tz="UTC")),
        ("webhook_version", pa.string()),
        ("inbox_id", pa.int64()),
        ("payload", pa.string()),
    ]
)


def event_batch(rows: list[tuple[Any, ...]]) -> pa.Table:
    """Inbox rows (as :meth:`Inbox.unfolded_events` yields them) as an Arrow table of
    :data:`EVENT_SCHEMA`; epoch seconds become UTC timestamps, bodies UTF-8 text."""
    columns: list[Any] = list(zip(*rows, strict=True)) if rows else [()] * 11
    micros = [None if t is None else int(t * 1_000_000) for t in columns[9]]
    stamps = [None if t is None else t * 1_000_000 for t in columns[5]]
    return pa.table(
        [
            pa.array(columns[1], pa.string()),
            pa.array(columns[2], pa.string()),
            pa.array(columns[3], pa.string()),
            pa.array(columns[4], pa.bool_()),
            pa.array(columns[6], pa.string()),
            pa.array(columns[7], pa.string()),
            pa.array(stamps, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
            pa.array(micros, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
            pa.array(columns[8], pa.string()),
            pa.array(columns[0], pa.int64()),
            pa.array(columns[10], pa.binary()).cast(pa.string()),
        ],
        schema=EVENT_SCHEMA,
    )


def quarantine(inbox: Inbox, ledger: FoldLedger) -> DltResource:
    """``quarantine``: refused bodies, insert-only on ``quarantine_key`` (receipt time + body)."""

    @dlt.resource(
        name="quarantine",
        primary_key="quarantine_key",
        write_disposition=INSERT_ONLY,
        columns={
            "body": {"data_type": "binary"},
            "received_at": {"data_type": "timestamp"},
        },
    )
    def _quarantine() -> Iterator[list[dict[str, Any]]]:
        rows = inbox.unfolded_quarantine()
        if not rows:
            return
        out = []
        for qid, received_at, status, reason, ctype, size, truncated, body in rows:
            ledger.quarantine_ids.append(qid)
            digest = hashlib.sha256(repr(received_at).encode() + bytes(body)).hexdigest()
            out.append(
                {
                    "quarantine_key": digest,
                    "received_at": _utc(received_at),
                    "status_code": status,
                    "reason": reason,
                    "content_type": ctype,
                    "body_bytes": size,
                    "is_truncated": bool(truncated),
                    "body": bytes(body),
                    "body_text": bytes(body).decode("utf-8", errors="replace"),
                }
            )
        yield out

    return _quarantine


def _utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)
