"""What the receiver writes to the inbox, and how events are keyed and inserted in one transaction.

:func:`store_events` runs inside the transaction :meth:`inbox.store.Inbox.store`
opens: an event whose key is new is inserted under it; one whose key (or ``legacy_key``) is
stored with the same body is a re-delivery (nothing written); one whose key is stored with a
different body is inserted under :func:`conflict_key` with ``conflict_of`` = the key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from .envelope import Envelope
from .tables import events_table

KEY_CHUNK = 500
"""Keys per ``IN (...)`` list when looking stored events up."""


@dataclass(frozen=True)
class ReceivedEvent:
    """One accepted event, ready to insert: its envelope, raw body, receipt time (epoch s), the
    request's ``Content-Type`` (kept if the body has to be quarantined after all), and the
    account whose path it came in on (``None``: the ``default`` account's,
    ``/webhooks/connecteam``; a named account's envelope is keyed by
    :func:`inbox.envelope.account_envelope`)."""

    envelope: Envelope
    body: bytes
    received_at: float
    content_type: str | None = None
    account: str | None = None


@dataclass(frozen=True)
class StoredEvent:
    """Where one event of :meth:`~inbox.store.Inbox.store` went.

    Attributes:
        event_key: The key it is stored under (its envelope's key, or ``<key>#<16 hex>`` for a
            different body under a stored key).
        outcome: ``stored`` (a new row), ``key_conflict`` (a new row: its envelope's key was
            stored with another body) or ``redelivery`` (the same body was already stored under
            the key, or under its ``legacy_key``: nothing written).
        conflict_of: The envelope's key when the event is stored under a conflict key.
    """

    event_key: str
    outcome: str
    conflict_of: str | None = None


@dataclass(frozen=True)
class RefusedBody:
    """One refused body for quarantine.

    Attributes:
        status_code: The status the receiver answered (422 or 413).
        reason: Why it was refused, as told to the sender.
        body: The raw bytes (at most the size limit).
        body_bytes: The full size the sender declared or sent.
        content_type: The request's ``Content-Type``.
        received_at: Epoch seconds.
    """

    status_code: int
    reason: str
    body: bytes
    body_bytes: int
    content_type: str | None
    received_at: float


class KeyCollisionError(ValueError):
    """Two different bodies share an event key and its conflict key (a 64-bit digest
    collision): the body cannot be stored as an event."""


class InboxRaceError(RuntimeError):
    """Other writers kept taking the keys of a batch between its read and its insert (several
    receivers on one PostgreSQL inbox); retrying the batch resolves it."""

    transient = True
    """For :func:`sources.connecteam.transient.is_transient`."""


def conflict_key(key: str, body: bytes) -> str:
    """The key of a body that differs from the one stored under ``key``:
    ``<key>#<first 16 hex of the body's SHA-256>``."""
    return f"{key}#{hashlib.sha256(body).hexdigest()[:16]}"


def caused_by_body(exc: BaseException) -> bool:
    """Whether a failed inbox write failed because of a value it was given (so retrying the
    same body can never succeed), as opposed to the database (unreachable, locked past its
    timeout, disk full, a lost connection: retrying may succeed).

    Body faults: the database refused a value (``DataError``, ``IntegrityError``), the driver
    could not bind one (``ValueError`` such as NUL in PostgreSQL text, ``OverflowError`` such as
    an integer beyond 64 bits in SQLite, ``TypeError``), or :class:`KeyCollisionError`.
    """
    if isinstance(exc, sa.exc.DataError | sa.exc.IntegrityError):
        return True
    if isinstance(exc, sa.exc.DBAPIError):
        return False
    if isinstance(exc, sa.exc.StatementError) and exc.orig is not None:
        exc = exc.orig
    return isinstance(exc, ValueError | TypeError | OverflowError)


def store_events(conn: sa.Connection, events: Sequence[ReceivedEvent]) -> list[StoredEvent]:
    """Classify and insert ``events`` inside ``conn``'s transaction (see the module docstring).

    Up to three rounds: look the pending events' keys up (:func:`stored_bodies`), insert the
    new ones (:func:`claim_keys`, :func:`insert_rows`) and settle what the insert did
    (:func:`settle_inserted`); an event whose key another writer took in between is pending again.

    Returns:
        One :class:`StoredEvent` per event, in order.

    Raises:
        KeyCollisionError: A body collides with another under both its keys.
        InboxRaceError: Other writers took the keys of some events three times running.
    """
    results: list[StoredEvent | None] = [None] * len(events)
    pending, copies = first_copies(events)
    bodies: dict[str, bytes] = {}
    for _ in range(3):
        if not pending:
            break
        bodies.update(stored_bodies(conn, _lookups(events, pending, bodies)))
        taken = [i for i in pending if events[i].envelope.event_key in bodies
                 and bodies[events[i].envelope.event_key] != events[i].body]  # fmt: skip
        alternatives = {conflict_key(events[i].envelope.event_key, events[i].body)
                        for i in taken}  # fmt: skip
        bodies.update(stored_bodies(conn, alternatives - bodies.keys()))
        tried = claim_keys(events, pending, bodies, results)
        inserted = insert_rows(conn, [event_row(events[i], *tried[i]) for i in tried])
        pending = settle_inserted(conn, events, tried, inserted, bodies, results)
    if pending:
        raise InboxRaceError(f"{len(pending)} event(s) lost their keys to other writers")
    for i, first in copies.items():
        done = results[first]
        assert done is not None
        results[i] = StoredEvent(done.event_key, "redelivery", done.conflict_of)
    return [r for r in results if r is not None]


def first_copies(events: Sequence[ReceivedEvent]) -> tuple[list[int], dict[int, int]]:
    """A body sent twice in one batch is decided once: ``(pending, copies)``, the indexes of
    each ``(event_key, body)``'s first event, and for every later one the index of its first."""
    first_of: dict[tuple[str, bytes], int] = {}
    copies: dict[int, int] = {}
    pending: list[int] = []
    for i, event in enumerate(events):
        seen = first_of.setdefault((event.envelope.event_key, event.body), i)
        if seen != i:
            copies[i] = seen
        else:
            pending.append(i)
    return pending, copies


def claim_keys(
    events: Sequence[ReceivedEvent],
    pending: Sequence[int],
    bodies: dict[str, bytes],
    results: list[StoredEvent | None],
) -> dict[int, tuple[str, str | None]]:
    """The key each pending event is to be inserted under, given the stored ``bodies`` looked up
    so far (``{event_key: body}``, which the new keys join).

    A re-delivery (its key, or its ``legacy_key`` when its key is free, holds the same body)
    gets its result in ``results`` and no key. A key held by another body gives way to
    :func:`conflict_key`.

    Returns:
        ``{event index: (key, conflict_of)}`` of the events to insert (``conflict_of``: the
        envelope's key when the event goes under its conflict key, else ``None``).

    Raises:
        KeyCollisionError: Both the key and the conflict key hold other bodies.
    """
    tried: dict[int, tuple[str, str | None]] = {}
    for i in pending:
        event = events[i]
        key, base = event.envelope.event_key, event.envelope.event_key
        legacy = event.envelope.legacy_key
        if key not in bodies and legacy and bodies.get(legacy) == event.body:
            results[i] = StoredEvent(legacy, "redelivery")
            continue
        if key in bodies and bodies[key] != event.body:
            key = conflict_key(base, event.body)
            if key in bodies and bodies[key] != event.body:
                raise KeyCollisionError(
                    f"event key {base!r} and its conflict key are both stored with other bodies"
                )
        if key in bodies:
            results[i] = StoredEvent(key, "redelivery", None if key == base else base)
            continue
        conflict_of = None if key == base else base
        bodies[key] = event.body
        tried[i] = (key, conflict_of)
    return tried


def settle_inserted(
    conn: sa.Connection,
    events: Sequence[ReceivedEvent],
    tried: dict[int, tuple[str, str | None]],
    inserted: set[str],
    bodies: dict[str, bytes],
    results: list[StoredEvent | None],
) -> list[int]:
    """The results of one insert of the ``tried`` keys (:func:`claim_keys`), ``inserted`` being
    the keys the insert stored: another writer (PostgreSQL) may have stored a key between the
    read and the insert; with the same body that event is a re-delivery.

    Returns:
        The indexes of the events whose keys another writer took with another body (their
        bodies noted in ``bodies``): pending for the next round.
    """
    others = stored_bodies(conn, {k for k, _ in tried.values()} - inserted)
    pending = []
    for i, (key, conflict_of) in tried.items():
        if key in inserted:
            outcome = "stored" if conflict_of is None else "key_conflict"
            results[i] = StoredEvent(key, outcome, conflict_of)
        elif others.get(key) == events[i].body:
            results[i] = StoredEvent(key, "redelivery", conflict_of)
        else:
            bodies[key] = others.get(key, b"")
            pending.append(i)
    return pending


def _lookups(
    events: Sequence[ReceivedEvent], pending: Iterable[int], known: dict[str, bytes]
) -> set[str]:
    """The keys (and legacy keys) of ``pending`` events not looked up yet."""
    keys: set[str] = set()
    for i in pending:
        envelope = events[i].envelope
        keys.add(envelope.event_key)
        if envelope.legacy_key:
            keys.add(envelope.legacy_key)
    return keys - known.keys()


def stored_bodies(conn: sa.Connection, keys: Iterable[str]) -> dict[str, bytes]:
    """``{event_key: body}`` of the stored events among ``keys``."""
    wanted = sorted(keys)
    found: dict[str, bytes] = {}
    mark = "?" if conn.dialect.name == "sqlite" else "%s"  # the driver's own placeholders: the
    for start in range(0, len(wanted), KEY_CHUNK):  # statement is run once per group commit
        part = tuple(wanted[start : start + KEY_CHUNK])
        marks = ", ".join([mark] * len(part))
        query = f"select event_key, body from inbox_events where event_key in ({marks})"
        rows = conn.exec_driver_sql(query, part).tuples()
        found.update((str(key), bytes(body)) for key, body in rows)
    return found


def insert_rows(conn: sa.Connection, rows: list[dict[str, Any]]) -> set[str]:
    """Insert event rows, skipping keys already stored; the keys inserted.

    Rows go in key order, so concurrent writers lock keys in one order (no deadlocks). On SQLite
    the write lock is held since the transaction's first read, so every row is new; on
    PostgreSQL the keys actually inserted are returned by the insert."""
    if not rows:
        return set()
    rows.sort(key=lambda row: str(row["event_key"]))
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        upsert = pg_insert(events_table).on_conflict_do_nothing(index_elements=["event_key"])
        returned = conn.execute(upsert.returning(events_table.c.event_key), rows)
        keys: list[Any] = list(returned.scalars())
        return {str(key) for key in keys}
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    insert = sqlite_insert(events_table).on_conflict_do_nothing(index_elements=["event_key"])
    conn.execute(insert, rows)
    return {str(row["event_key"]) for row in rows}


def event_row(event: ReceivedEvent, key: str, conflict_of: str | None) -> dict[str, Any]:
    """The ``inbox_events`` row of ``event`` stored under ``key``."""
    e = event.envelope
    return {
        "event_key": key,
        "event_type": e.event_type,
        "family": e.family,
        "is_known_type": e.is_known_type,
        "event_timestamp": e.event_timestamp,
        "activity_type": e.activity_type,
        "company": e.company,
        "webhook_version": e.webhook_version,
        "received_at": event.received_at,
        "body": event.body,
        "request_id": e.request_id,
        "is_event_time_implausible": e.is_event_time_implausible,
        "conflict_of": conflict_of,
        "account": event.account,
    }


def quarantine_row(r: RefusedBody) -> dict[str, Any]:
    """The ``inbox_quarantine`` row of a refused body (NUL in the reason replaced, the content
    type cut to 200 characters, the size capped to a 64-bit integer)."""
    return {
        "received_at": r.received_at,
        "status_code": r.status_code,
        "reason": r.reason.replace("\x00", "\ufffd"),
        "content_type": None if r.content_type is None else r.content_type[:200],
        "body_bytes": min(r.body_bytes, 2**63 - 1),
        "is_truncated": len(r.body) < r.body_bytes,
        "body": r.body,
    }
