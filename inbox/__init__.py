"""The webhook inbox: the durable store the receiver writes each delivery to before it answers
200, and the fold reads from. Below both (``receiver`` and :mod:`sources.webhooks`), and imports
no dlt, DuckDB or Arrow: the receiver loads only this, SQLAlchemy and its HTTP server.

Modules: :mod:`~inbox.store` (:class:`Inbox`: open, write, read unfolded, mark folded, prune),
:mod:`~inbox.tables` (its tables), :mod:`~inbox.writes` (keyed inserts of events and refused
bodies), :mod:`~inbox.engines` (one engine per use, SQLite's write lock),
:mod:`~inbox.batches` (reads bounded by rows and bytes, a fold round's budget),
:mod:`~inbox.quarantine_budget`, :mod:`~inbox.refusals` (counted refused deliveries),
:mod:`~inbox.rotation` (token and secret rotation), :mod:`~inbox.events` (the event catalogue),
:mod:`~inbox.envelope` (an event's type, family and key), :mod:`~inbox.url` (the inbox URL,
checked) and :mod:`~inbox.defaults` (the ``[webhooks]`` settings' defaults).
"""

from __future__ import annotations

from .batches import DEFAULT_BATCH_BYTES, DEFAULT_ROUND_BYTES, RoundBudget
from .defaults import DEFAULT_INBOX_URL
from .envelope import Envelope, read_envelope
from .events import CATALOGUE, FAMILIES, UNKNOWN_FAMILY
from .store import Inbox
from .url import InboxURLError, check_inbox_url
from .writes import ReceivedEvent, RefusedBody, StoredEvent, caused_by_body

__all__ = [
    "CATALOGUE",
    "DEFAULT_BATCH_BYTES",
    "DEFAULT_INBOX_URL",
    "DEFAULT_ROUND_BYTES",
    "FAMILIES",
    "UNKNOWN_FAMILY",
    "Envelope",
    "Inbox",
    "InboxURLError",
    "ReceivedEvent",
    "RefusedBody",
    "RoundBudget",
    "StoredEvent",
    "caused_by_body",
    "check_inbox_url",
    "read_envelope",
]
