"""Webhook bursts for a receiver: provider-like event bodies (:mod:`emulator.webhook_events`, or
drawn from the spec's schemas: :mod:`emulator.spec_data`) with duplicates and malformed bodies
mixed in, bodies for the emulator's own time activities, and the sender that POSTs them
(:mod:`emulator.webhook_sender`).

A burst is a list of ``(body, request id, family)``: the request id is the event's ``requestId``
(``None`` for a malformed body), the emulator's own name for the event; the key a receiver stores
the event under is the receiver's business, and the sender learns it from the receiver's answer
(:attr:`~emulator.webhook_sender.SendReport.acknowledged_keys`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from .spec_webhooks import catalogue
from .webhook_events import COMPANY, make_event, random_uuid
from .webhook_sender import SendReport, send_burst, signature_headers

__all__ = ["SendReport", "activity_events", "build_burst", "make_event", "send_burst",
           "signature_headers"]  # fmt: skip

MALFORMED_BODIES = [
    b"this is not json",
    b'{"eventType": "clock_in", "eventTimestamp": 1700000000',  # cut short
    b"[1, 2, 3]",
    b'"a string"',
    b'{"hello": "no envelope here"}',
]


def build_burst(
    events: int,
    *,
    seed: int = 1,
    families: Iterable[str] | None = None,
    duplicate_rate: float = 0.0,
    malformed_rate: float = 0.0,
    now: int | None = None,
    user_ids: Sequence[int] | None = None,
    data: str = "emulator",
) -> list[tuple[bytes, str | None, str | None]]:
    """Bodies to send: ``(body, requestId or None for malformed, family)``, in sending order
    (a repeated body keeps its ``requestId``, its family ``None``).

    ``events`` distinct events cycle through every event type of the chosen families
    (:func:`emulator.spec_webhooks.catalogue`, in its order; V1 and V2 shift events alternate);
    each is repeated with probability ``duplicate_rate`` and a malformed body is slipped in with
    probability ``malformed_rate``.

    ``data="spec"``: the distinct events are drawn from the spec's 41 webhook payload schemas
    instead, wilder than the spec (:func:`emulator.spec_data.spec_webhooks`; ``now`` places their
    dates, ``families`` and ``user_ids`` do not apply); duplicates and malformed bodies as above.

    Raises:
        ValueError: ``data`` is neither ``emulator`` nor ``spec``, or no event type belongs to
            ``families``.
    """
    rng = random.Random(seed)
    if data == "spec":
        from .spec_data import spec_webhook_bodies

        drawn = spec_webhook_bodies(events, seed, now)
        return _with_repeats(drawn, rng, duplicate_rate, malformed_rate)
    if data != "emulator":
        raise ValueError(f"data={data!r}: choose 'emulator' or 'spec'")
    wanted = set(families) if families else None
    types = [t for t in catalogue().values() if wanted is None or t.family in wanted]
    if not types:
        raise ValueError(f"no events in families {sorted(wanted or [])}")
    out: list[tuple[bytes, str | None, str | None]] = []
    for i in range(events):
        spec = types[i % len(types)]
        version = "v2" if (i // len(types)) % 2 else "v1"
        payload = make_event(spec.event_type, rng, now, version, user_ids)
        body = orjson.dumps(payload)
        out.append((body, payload["requestId"], spec.family))
        if rng.random() < duplicate_rate:
            out.append((body, payload["requestId"], None))
        if rng.random() < malformed_rate:
            out.append((rng.choice(MALFORMED_BODIES), None, None))
    return out


def _with_repeats(
    bodies: list[tuple[bytes, str | None, str | None]],
    rng: random.Random,
    duplicate_rate: float,
    malformed_rate: float,
) -> list[tuple[bytes, str | None, str | None]]:
    """``bodies`` with each repeated (request id kept, family ``None``) with probability
    ``duplicate_rate`` and a malformed body slipped in with probability ``malformed_rate``."""
    out: list[tuple[bytes, str | None, str | None]] = []
    for body, key, family in bodies:
        out.append((body, key, family))
        if rng.random() < duplicate_rate:
            out.append((body, key, None))
        if rng.random() < malformed_rate:
            out.append((rng.choice(MALFORMED_BODIES), None, None))
    return out


def activity_events(
    operations: Any, since: int, *, missed_every: int = 20, extra: int = 2, seed: int = 3
) -> list[tuple[bytes, str | None, str | None]]:
    """Webhook bodies for the emulator's own time activities that started at ``since`` (epoch
    seconds) or later, as the provider would have pushed them, with deliveries lost on purpose.

    Every ``missed_every``-th activity gets no event (a delivery the provider gave up on), and
    ``extra`` events describe activities the API does not hold (deleted since). Shifts and
    manual breaks come as ``clock_out``, time off as ``admin_add``; the payload's
    ``timeActivity`` is the API's record, so both sides agree where both have an activity.

    Returns:
        ``(body, requestId, family)`` tuples, as :func:`build_burst`.
    """
    rng = random.Random(seed)
    kinds = {"shifts": "shift", "manualBreaks": "manual_break", "timeOffs": "time_off"}
    out: list[tuple[bytes, str | None, str | None]] = []
    recent = [
        (clock_id, item)
        for clock_id, items in sorted(operations.activities.items())
        for item in items
        if item["record"]["start"]["timestamp"] >= since
    ]
    for n, (clock_id, item) in enumerate(recent):
        if missed_every and n % missed_every == missed_every - 1:
            continue
        out.append(_activity_event(rng, clock_id, item["userId"], kinds[item["kind"]],
                                   item["record"]))  # fmt: skip
    for k in range(extra if recent else 0):
        clock_id, item = recent[k % len(recent)]
        ghost = dict(item["record"], id=f"deleted-{k + 1:04d}")
        out.append(_activity_event(rng, clock_id, item["userId"], kinds[item["kind"]], ghost))
    return out


def _activity_event(
    rng: random.Random, clock_id: int, user_id: int, kind: str, record: dict[str, Any]
) -> tuple[bytes, str | None, str | None]:
    stamp = int(record.get("modifiedAt") or record["start"]["timestamp"])
    payload = {
        "requestId": random_uuid(rng),
        "company": COMPANY,
        "eventType": "admin_add" if kind == "time_off" else "clock_out",
        "eventTimestamp": stamp,
        "evnetTimestamp": stamp,
        "activityType": kind,
        "userId": user_id,
        "timeClockId": clock_id,
        "timeActivity": record,
        "timeActivityId": record["id"],
    }
    return orjson.dumps(payload), payload["requestId"], "time_activity"
