"""The ``webhooks`` dlt source: reads the durable inbox (:mod:`inbox`) and loads events into
dataset ``webhooks``.

Resources:

``events``
    One row per delivered event, insert-only on ``event_key`` (``requestId``/event type/identity
    digest, else a hash of the body: :func:`inbox.envelope.event_key`):
    ``event_key, event_type, family, is_known_type, activity_type, company, event_timestamp``
    (UTC timestamp), ``received_at`` (UTC timestamp), ``webhook_version``, ``inbox_id``,
    ``payload`` (the raw body as JSON), ``request_id``, ``is_event_time_implausible``,
    ``conflict_of``, ``is_payload_unreadable``, ``payload_text`` and ``account`` (the account
    whose receiver path the event came in on: ``default`` or a named account, whose events'
    keys start ``<account>:``, :func:`inbox.envelope.account_envelope`).

    The fold never fails on a value of a stored event: an event time that is not a plausible
    time (2000..2100) loads as a NULL ``event_timestamp`` with ``is_event_time_implausible``; a
    body the warehouse cannot hold as JSON (not UTF-8 JSON, or a U+0000 character where the
    warehouse is PostgreSQL, whose ``jsonb`` refuses it) loads as a NULL ``payload`` with
    ``is_payload_unreadable`` and the body as text in ``payload_text``. Values inside a payload
    (integers beyond 64 bits, NUL characters, deep nesting) load as sent; the staging models
    type them (NULL and counted when untypable).
``quarantine``
    Every refused body (malformed or oversized): ``quarantine_key, received_at, status_code,
    reason, content_type, body_bytes, is_truncated, body`` (raw bytes) and ``body_text``.

Rows are read in ``inbox_id`` order, up to a snapshot bound, in batches bounded by rows and by
bytes of bodies (:mod:`inbox.batches`), events as Arrow tables. The ids read are
collected in a :class:`FoldLedger` so the fold job can mark them folded after the load commits;
insert-only loading makes a re-read after an interruption harmless.

The inbox itself (its tables, keyed writes, engines, batches, quarantine budget, refusals,
rotation, the event catalogue and envelope) is the package :mod:`inbox`, below both this source
and the HTTP server that fills it (the package ``receiver``); the ``quarantine`` resource is
:mod:`~sources.webhooks.quarantine`.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import dlt
import duckdb
import orjson
import pyarrow as pa
import pyarrow.compute
from dlt.sources import DltResource

from core.progress import Progress
from core.project import DEFAULT_ACCOUNT
from inbox.batches import DEFAULT_BATCH_BYTES, RoundBudget
from inbox.envelope import plausible_time, read_envelope
from inbox.store import Inbox

from ..arrow_hints import quiet_arrow_hint_warnings
from .quarantine import INSERT_ONLY, max_unfolded_quarantine_id, quarantine

__all__ = ["FoldLedger", "events", "max_unfolded_quarantine_id", "webhooks_source"]

logger = logging.getLogger("sources.webhooks")


@dataclass
class FoldLedger:
    """What one fold read from the inbox.

    Attributes:
        inbox_ids: ``inbox_events.inbox_id`` of every event read.
        quarantine_ids: ``inbox_quarantine.quarantine_id`` of every refused body read.
        families: Events read per family.
        key_conflicts: Events read that were stored under a conflict key (their key was taken
            by another body).
        implausible_times: Events read whose event time is not plausible (NULL, flagged).
        unreadable_payloads: Events read whose body the warehouse cannot hold as JSON.
        budget: The bytes of bodies read, against the round's limit (``budget.cut_short``: the
            round stopped at its limit and the inbox may hold more).
    """

    inbox_ids: list[int] = field(default_factory=list)
    quarantine_ids: list[int] = field(default_factory=list)
    families: Counter[str] = field(default_factory=Counter)
    key_conflicts: int = 0
    implausible_times: int = 0
    unreadable_payloads: int = 0
    budget: RoundBudget = field(default_factory=RoundBudget)

    def add(self, other: FoldLedger) -> None:
        """Add what ``other`` (a later round of the same fold) read."""
        self.inbox_ids.extend(other.inbox_ids)
        self.quarantine_ids.extend(other.quarantine_ids)
        self.families.update(other.families)
        self.key_conflicts += other.key_conflicts
        self.implausible_times += other.implausible_times
        self.unreadable_payloads += other.unreadable_payloads
        self.budget.spend(other.budget.spent)


@dlt.source(name="webhooks", max_table_nesting=0)
def webhooks_source(
    inbox: Inbox,
    batch_size: int = 100_000,
    upto_id: int | None = None,
    ledger: FoldLedger | None = None,
    json_holds_nul: bool = True,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    quarantine_upto_id: int | None = None,
) -> list[DltResource]:
    """Events and quarantined bodies of the webhook inbox not yet folded, or as many as
    ``ledger.budget`` allows (both resources stop reading once it is spent).

    Each resource yields one batch of at most ``batch_size`` rows (refused bodies: at most
    :data:`~inbox.batches.DEFAULT_QUARANTINE_ROWS`) and ``batch_bytes`` bytes of
    bodies at a time. When dlt writes each batch out before the next is read (its
    ``data_writer.buffer_max_items`` 1, as the fold job sets it for this source), a fold's
    memory follows ``batch_bytes``, not the backlog.

    Args:
        inbox: The open :class:`Inbox` to read (the fold opens it on the project's
            ``inbox_url``: :attr:`core.project.Project.webhooks`).
        batch_size: Inbox events per Arrow table.
        upto_id: Read no event with a larger ``inbox_id`` (so a fold ends while events arrive).
        ledger: Filled with the ids read; its ``budget`` limits the bytes of bodies read.
        json_holds_nul: Whether the warehouse's JSON type holds U+0000 in strings (DuckDB yes,
            PostgreSQL ``jsonb`` no: such payloads then load as unreadable).
        batch_bytes: Most bytes of bodies per batch (default 32 MiB; one larger body is a batch
            of its own).
        quarantine_upto_id: Read no refused body with a larger ``quarantine_id`` (a fold takes
            it once: :func:`~sources.webhooks.quarantine.max_unfolded_quarantine_id`); ``None``:
            the largest unfolded one at the first read.

    Returns:
        The resources ``events`` and ``quarantine``.
    """
    box = inbox
    book = ledger if ledger is not None else FoldLedger()
    return [
        events(box, batch_size, upto_id, book, json_holds_nul, batch_bytes),
        quarantine(box, book.quarantine_ids, batch_bytes, book.budget, quarantine_upto_id),
    ]


def events(
    inbox: Inbox,
    batch_size: int,
    upto_id: int | None,
    ledger: FoldLedger,
    json_holds_nul: bool = True,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
) -> DltResource:
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
        for rows in inbox.unfolded_events(batch_size, upto_id, batch_bytes):
            progress.page(len(rows))
            ledger.inbox_ids.extend(r[0] for r in rows)
            ledger.families.update(r[3] for r in rows)
            batch = event_batch(rows, json_holds_nul)
            ledger.key_conflicts += sum(1 for r in rows if r[13] is not None)
            ledger.implausible_times += _trues(batch, "is_event_time_implausible")
            ledger.unreadable_payloads += _trues(batch, "is_payload_unreadable")
            emitted = True
            ledger.budget.spend(sum(len(r[10]) for r in rows))
            del rows  # only the Arrow copy of the bodies stays while dlt writes it out
            yield batch
            if ledger.budget.cut_short:  # by these events or by the quarantine's
                break
        if not emitted:  # an empty batch still creates the table for the models downstream
            yield event_batch([])
        progress.done(" read from the inbox")

    return _events


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
        ("request_id", pa.string()),
        ("is_event_time_implausible", pa.bool_()),
        ("conflict_of", pa.string()),
        ("is_payload_unreadable", pa.bool_()),
        ("payload_text", pa.string()),
        ("account", pa.string()),
    ]
)
RECEIVED_RANGE = (-62_135_596_800.0, 253_402_300_799.0)
"""Epoch seconds a ``received_at`` may hold (years 1..9999); others load as NULL."""


def event_batch(rows: list[tuple[Any, ...]], json_holds_nul: bool = True) -> pa.Table:
    """Inbox rows (as :meth:`Inbox.unfolded_events` yields them) as an Arrow table of
    :data:`EVENT_SCHEMA`: epoch seconds become UTC timestamps, bodies UTF-8 JSON text.

    Never raises on a stored value: an event time that is not plausible
    (:func:`inbox.envelope.plausible_time`) becomes NULL with
    ``is_event_time_implausible``; a body that is not UTF-8 JSON (or, unless
    ``json_holds_nul``, holds U+0000) becomes a NULL ``payload`` with ``is_payload_unreadable``
    and its text in ``payload_text``. Rows stored before the inbox kept ``request_id`` and the
    time flag (both NULL) get them from their body. ``account`` is the account the event came
    in for: ``default`` for the default account's path (stored NULL).
    """
    columns: list[Any] = list(zip(*rows, strict=True)) if rows else [()] * 15
    (ids, keys, types, families, known, stamps, activities, companies, versions, received,
     bodies, request_ids, flags, conflicts, accounts) = columns  # fmt: skip
    payloads, unreadable, texts = _payloads(bodies, json_holds_nul)
    event_micros: list[int | None] = []
    implausible: list[bool] = []
    request_out: list[str | None] = []
    for i, stamp in enumerate(stamps):
        seconds = plausible_time(stamp) if stamp is not None else None
        flag, request_id = flags[i], request_ids[i]
        if flag is None:  # a row from before the inbox kept the flag: read the body
            envelope = _envelope_of(bodies[i])
            flag = envelope.is_event_time_implausible if envelope else False
            request_id = envelope.request_id if envelope else None
        event_micros.append(None if seconds is None else seconds * 1_000_000)
        implausible.append(bool(flag) or (stamp is not None and seconds is None))
        request_out.append(request_id)
    return pa.table(
        [
            pa.array(keys, pa.string()),
            pa.array(types, pa.string()),
            pa.array(families, pa.string()),
            pa.array(known, pa.bool_()),
            pa.array(activities, pa.string()),
            pa.array(companies, pa.string()),
            pa.array(event_micros, pa.int64()).cast(pa.timestamp("us", tz="UTC")),
            pa.array([_micros(t) for t in received], pa.int64()).cast(pa.timestamp("us", tz="UTC")),
            pa.array(versions, pa.string()),
            pa.array(ids, pa.int64()),
            payloads,
            pa.array(request_out, pa.string()),
            pa.array(implausible, pa.bool_()),
            pa.array(conflicts, pa.string()),
            pa.array(unreadable, pa.bool_()),
            pa.array(texts, pa.string()),
            pa.array([a or DEFAULT_ACCOUNT for a in accounts], pa.string()),
        ],
        schema=EVENT_SCHEMA,
    )


def _payloads(
    bodies: tuple[Any, ...], json_holds_nul: bool
) -> tuple[pa.Array, list[bool], list[str | None]]:
    """The bodies as a JSON text column, whether each is unreadable, and the text of those.

    A body is unreadable when it is not UTF-8, not JSON (DuckDB's ``json_valid``, the parser
    the load casts with; about a microsecond per body), or, unless ``json_holds_nul``, holds
    U+0000 in a string or key. The receiver stores only JSON objects, so this finds rows written
    by other tools, and NUL characters bound for PostgreSQL."""
    count = len(bodies)
    unreadable = [False] * count
    texts: list[str | None] = [None] * count
    raw = pa.array(bodies, pa.binary())
    try:
        payloads = raw.cast(pa.string())
    except pa.ArrowInvalid:
        payloads = pa.array([_utf8(bytes(b)) for b in bodies], pa.string())
    bad = set(_invalid_json(payloads))
    if not json_holds_nul:
        blobs = (bytes(b) for b in bodies)
        bad.update(i for i, b in enumerate(blobs) if b"\\u0000" in b and _nul_inside(b))
    if not bad:
        return payloads, unreadable, texts
    kept = payloads.to_pylist()
    for i in sorted(bad):
        unreadable[i] = True
        texts[i] = bytes(bodies[i]).decode("utf-8", errors="replace").replace("\x00", "\ufffd")
        kept[i] = None
    return pa.array(kept, pa.string()), unreadable, texts


def _utf8(body: bytes) -> str | None:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _invalid_json(texts: pa.Array) -> list[int]:
    """Positions of the texts that are NULL or not valid JSON."""
    if not len(texts):
        return []
    table = pa.table({"i": pa.array(range(len(texts)), pa.int64()), "p": texts})
    with duckdb.connect() as con:
        con.register("bodies", table)
        rows = con.sql("select i from bodies where not coalesce(json_valid(p), false)").fetchall()
    return [int(r[0]) for r in rows]


def _nul_inside(body: bytes) -> bool:
    """Whether a JSON body holds U+0000 in a string or key (unparsable counts as holding)."""
    try:
        return _holds_nul(orjson.loads(body))
    except orjson.JSONDecodeError:
        return True


def _holds_nul(value: Any) -> bool:
    """Whether a decoded JSON value holds U+0000 in any string or key (iterative: any depth)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if "\x00" in node:
                return True
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _envelope_of(body: Any) -> Any:
    """The envelope of a stored body, or ``None`` when it is not a JSON object."""
    try:
        payload = orjson.loads(bytes(body))
    except orjson.JSONDecodeError:
        return None
    return read_envelope(payload, bytes(body)) if isinstance(payload, dict) else None


def _trues(batch: pa.Table, column: str) -> int:
    """How many rows of ``batch`` have ``column`` true (0 without the column)."""
    if column not in batch.column_names:
        return 0
    return int(pa.compute.sum(batch[column].cast(pa.int64())).as_py() or 0)


def _micros(epoch: Any) -> int | None:
    """Epoch seconds as microseconds, or ``None`` unless a finite number in years 1..9999."""
    if isinstance(epoch, bool) or not isinstance(epoch, int | float):
        return None
    if not (math.isfinite(epoch) and RECEIVED_RANGE[0] <= epoch <= RECEIVED_RANGE[1]):
        return None
    return int(epoch * 1_000_000)
