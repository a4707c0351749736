"""Reading one webhook payload's envelope: its event type and family (the catalogue,
:mod:`inbox.events`), its key in the inbox and the warehouse (:func:`event_key`), its
event time (UTC epoch seconds, :func:`event_time`) and text fields made storable in any inbox
database (:func:`read_envelope`).

Every payload shares the envelope ``requestId, company, eventType, eventTimestamp,
evnetTimestamp (deprecated, may be absent), activityType``; the event fields follow at the top
level or under ``data`` (where the key fields sit: :data:`~inbox.events.KEY_FIELDS`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from .events import CATALOGUE, KEY_FIELDS, UNKNOWN_FAMILY

MAX_KEY_CHARS = 180
"""Longest event key (the inbox column holds 200; a conflicting delivery's key adds 17)."""


@dataclass(frozen=True)
class Envelope:
    """What the receiver reads from one payload.

    Attributes:
        event_key: The event's key in the inbox and the warehouse (:func:`event_key`):
            ``<requestId>/<eventType>/<16 hex of the event's identity>``, or
            ``sha256:<hex of the raw body>`` without a ``requestId``.
        event_type: The ``eventType`` string (NUL characters replaced, at most 200 characters),
            or ``None``.
        family: The catalogue family, or ``"unknown"``.
        is_known_type: Whether the event type is in the catalogue.
        event_timestamp: ``eventTimestamp`` (UTC epoch seconds), falling back to the deprecated
            ``evnetTimestamp``; ``None`` when neither is a plausible time (:func:`event_time`).
        activity_type: ``activityType`` as text, or ``None``.
        company: ``company`` as text, or ``None``.
        webhook_version: ``webhookVersion`` (shift events) as text, or ``None``.
        request_id: ``requestId`` when it is a non-empty string (as text), else ``None``.
        is_event_time_implausible: An event time was sent (``eventTimestamp`` or
            ``evnetTimestamp`` not null) but none is a plausible time, so ``event_timestamp`` is
            ``None``; the raw value stays in the body.
        legacy_key: The key this event had before keys carried the event's identity (its
            ``requestId``), so a re-delivery of an event stored under that key is recognised;
            ``None`` when it equals ``event_key``.
    """

    event_key: str
    event_type: str | None
    family: str
    is_known_type: bool
    event_timestamp: int | None
    activity_type: str | None
    company: str | None
    webhook_version: str | None
    request_id: str | None = None
    is_event_time_implausible: bool = False
    legacy_key: str | None = None

    @property
    def recognisable(self) -> bool:
        """An envelope needs an event type or an event time (plausible or not)."""
        return (
            self.event_type is not None
            or self.event_timestamp is not None
            or self.is_event_time_implausible
        )


EPOCH_MIN, EPOCH_MAX = 946_684_800, 4_102_444_800
"""Event times outside 2000-01-01..2100-01-01 (UTC epoch seconds) are not plausible."""
TIME_FIELDS = ("eventTimestamp", "evnetTimestamp")
"""The envelope's event time and its deprecated misspelled duplicate, in order of preference."""


def plausible_time(value: Any) -> int | None:
    """``value`` as UTC epoch seconds when it is an integral number (``int``, or a ``float``
    without a fraction) within 2000..2100 (:data:`EPOCH_MIN`, :data:`EPOCH_MAX`), else ``None``
    (booleans, text, fractions, negative numbers, milliseconds, numbers beyond 64 bits)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    if EPOCH_MIN <= value < EPOCH_MAX:
        return int(value)
    return None


def event_time(payload: dict[str, Any]) -> int | None:
    """``eventTimestamp``, falling back to the deprecated ``evnetTimestamp`` (UTC epoch seconds);
    ``None`` when neither is a plausible time (:func:`plausible_time`; the raw value stays in
    the payload)."""
    for name in TIME_FIELDS:
        stamp = plausible_time(payload.get(name))
        if stamp is not None:
            return stamp
    return None


def account_envelope(envelope: Envelope, account: str) -> Envelope:
    """``envelope`` of an event delivered for the named ``account`` (its own receiver path):
    keyed ``<account>:<key>``, so the same event of two accounts (ids collide between accounts)
    is stored twice, once for each; ``<account>:key-sha256:<hex of the key>`` when that would
    be longer than :data:`MAX_KEY_CHARS`. No legacy key: no event of a named account was
    stored before keys carried the account."""
    key = f"{account}:{envelope.event_key}"
    if len(key) > MAX_KEY_CHARS:
        key = f"{account}:key-sha256:{hashlib.sha256(envelope.event_key.encode()).hexdigest()}"
    return replace(envelope, event_key=key, legacy_key=None)


def body_hash(raw: bytes) -> str:
    """The event key of a payload without ``requestId``: ``sha256:<hex of the raw body>``."""
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def event_key(payload: dict[str, Any], raw: bytes, event_type: str | None, family: str) -> str:
    """The key an event is stored under: its own identity, not only the request it came in.

    With a ``requestId`` (a non-empty string): ``<requestId>/<eventType>/<digest>``, the digest
    being the first 16 hex digits of SHA-256 over ``requestId``, ``eventType`` and the family's
    :data:`KEY_FIELDS` (so two events of one request, e.g. V1 shift events, one per assignment,
    get two keys; key fields nested too deep to write out are replaced by the raw body). When
    ``requestId`` and ``eventType`` are too long for a readable key (:data:`MAX_KEY_CHARS`) or
    hold control characters: ``key-sha256:<hex of the same>``.
    Without a ``requestId``: :func:`body_hash` of ``raw``.
    """
    request_id = payload.get("requestId")
    if not (isinstance(request_id, str) and request_id):
        return body_hash(raw)
    try:
        identity = _canonical([request_id, event_type, key_fields(payload, family)])
    except (RecursionError, ValueError):  # key fields nested too deep to write: the whole body
        identity = _canonical([request_id, event_type]) + raw
    digest = hashlib.sha256(identity).hexdigest()
    readable = f"{request_id}/{event_type or ''}/{digest[:16]}"
    if len(readable) > MAX_KEY_CHARS or not readable.isprintable():
        return "key-sha256:" + digest
    return readable


def read_envelope(payload: dict[str, Any], raw: bytes) -> Envelope:
    """Classify one decoded payload (a JSON object) received as ``raw`` bytes.

    Text fields are made storable in any inbox database: NUL characters become U+FFFD and
    values are cut to their column's width (the raw body keeps them as sent).
    """
    sent_type = payload.get("eventType")
    sent_type = sent_type if isinstance(sent_type, str) and sent_type else None
    known = CATALOGUE.get(sent_type) if sent_type else None
    family = known.family if known else UNKNOWN_FAMILY
    request_id = payload.get("requestId")
    request_id = request_id if isinstance(request_id, str) and request_id else None
    key = event_key(payload, raw, sent_type, family)
    stamp = event_time(payload)
    sent_time = any(payload.get(name) is not None for name in TIME_FIELDS)
    return Envelope(
        event_key=key,
        event_type=_text(sent_type, 200),
        family=family,
        is_known_type=known is not None,
        event_timestamp=stamp,
        activity_type=_text(payload.get("activityType"), 200),
        company=_text(payload.get("company"), 200),
        webhook_version=_text(payload.get("webhookVersion"), 40),
        request_id=_text(request_id),
        is_event_time_implausible=stamp is None and sent_time,
        legacy_key=_legacy_key(request_id, key),
    )


def _legacy_key(request_id: str | None, key: str) -> str | None:
    """The key the event had before keys carried its identity (its ``requestId``), when that
    differs from ``key`` and could be stored (no NUL: PostgreSQL text cannot hold one)."""
    if request_id is None or request_id == key or "\x00" in request_id:
        return None
    return request_id


def key_fields(payload: dict[str, Any], family: str) -> dict[str, Any]:
    """The family's key fields of one payload (:data:`KEY_FIELDS`; absent fields are left out,
    a ``[*]`` path gives the list of its items' values)."""
    out: dict[str, Any] = {}
    for name, path in KEY_FIELDS.get(family, {}).items():
        node = _walk(payload, path.split("."))
        if node is not None and node != []:
            out[name] = node
    return out


def _walk(node: Any, parts: list[str]) -> Any:
    for i, part in enumerate(parts):
        each = part.endswith("[*]")
        name = part[:-3] if each else part
        node = node.get(name) if isinstance(node, dict) else None
        if each:
            items = node if isinstance(node, list) else []
            found = [_walk(item, parts[i + 1 :]) for item in items]
            return [value for value in found if value is not None]
    return node


def _canonical(value: Any) -> bytes:
    """``value`` as JSON with sorted keys (integers of any size, as the standard library
    writes them), the input of an event key's digest."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=repr).encode("utf-8", "surrogatepass")  # fmt: skip


def _text(value: Any, width: int | None = None) -> str | None:
    """``value`` as text a database column takes (objects and arrays as JSON): NUL characters
    replaced by U+FFFD, cut to ``width`` characters; ``None`` stays ``None``."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value
    elif isinstance(value, dict | list):  # as JSON; one nested too deep to write: its kind
        try:
            text = json.dumps(value, ensure_ascii=False, default=repr)
        except (RecursionError, ValueError):
            text = f"<{type(value).__name__}>"
    else:
        text = str(value)
    text = text.replace("\x00", "\ufffd")
    return text if width is None or len(text) <= width else text[: width - 1] + "\u2026"
