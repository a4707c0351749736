"""The emulator's webhook sender: POSTs event bodies to a receiver as the provider does
(concurrently, re-delivering what got no answer), optionally signed per Standard Webhooks with
the ``standardwebhooks`` package, and reports what came back."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
from standardwebhooks import Webhook

SECRET_PREFIX = "whsec_"


def webhook_key(secret: str) -> str | bytes:
    """What :class:`standardwebhooks.Webhook` takes for ``secret``: a ``whsec_<base64>`` secret
    as it is (the library strips the prefix and decodes the base64 into the HMAC key); any other
    text as its UTF-8 bytes, which the library uses as the HMAC key unchanged."""
    return secret if secret.startswith(SECRET_PREFIX) else secret.encode()


def signature_headers(secret: str, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers of ``body``: ``webhook-id``, ``webhook-timestamp`` (epoch
    seconds) and ``webhook-signature`` (``v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">``).

    Raises:
        UnicodeDecodeError: ``body`` is not UTF-8 (the library signs text).
    """
    signature = Webhook(webhook_key(secret)).sign(
        msg_id, datetime.fromtimestamp(timestamp, UTC), body.decode()
    )
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature,
    }


@dataclass
class SendReport:
    """What one burst did.

    Attributes:
        sent: POSTs made (duplicates and malformed included).
        statuses: Final answers by HTTP status (0 = no answer: the connection failed or timed
            out on the last attempt).
        errors: The transport errors behind the 0s, by exception class (``ReadTimeout``, ...).
        retried: Attempts repeated after a transport error (``send_burst(retries=...)``).
        acknowledged_keys: Event keys (as the receiver keys them:
            :func:`emulator.webhooks.event_key`) of the bodies answered 200.
        malformed_sent: Malformed bodies sent.
        duplicates_sent: Repeated bodies sent.
        families: Distinct events sent per family.
        seconds: Wall time of the burst.
    """

    sent: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    retried: int = 0
    acknowledged_keys: set[str] = field(default_factory=set)
    malformed_sent: int = 0
    duplicates_sent: int = 0
    families: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


async def send_burst(
    url: str,
    bodies: Sequence[tuple[bytes, str | None, str | None]],
    *,
    token: str | None = None,
    signing_secret: str | None = None,
    concurrency: int = 16,
    timeout: float = 30.0,
    retries: int = 0,
    retry_delay: float = 1.0,
    on_progress: Callable[[int, int], None] | None = None,
) -> SendReport:
    """POST ``bodies`` to ``url`` with ``concurrency`` requests in flight.

    A request that gets no answer (connection refused or dropped, timeout) is sent again up to
    ``retries`` times, ``retry_delay`` seconds apart, as the provider re-delivers an event that got
    no answer; an HTTP answer of any status is final.

    Args:
        url: The receiver's endpoint, e.g. ``http://127.0.0.1:8000/webhooks/connecteam``.
        bodies: ``(body, event key or None, family or None)`` tuples, from
            :func:`emulator.webhooks.build_burst`.
        token: Sent as ``X-Webhook-Token``.
        signing_secret: When set, each request carries Standard Webhooks signature headers
            (:func:`signature_headers`; a body that is not UTF-8 goes unsigned).
        concurrency: Requests in flight at once.
        timeout: Seconds per request (the provider waits 30).
        retries: Further attempts after a transport error (0: none).
        retry_delay: Seconds between attempts.
        on_progress: Called as ``on_progress(finished, total)`` after each body's final
            attempt (``total`` = ``len(bodies)``).
    """
    report = SendReport()
    seen: set[bytes] = set()
    queue: asyncio.Queue[tuple[bytes, str | None, str | None]] = asyncio.Queue()
    for item in bodies:
        queue.put_nowait(item)
        if item[1] is None:
            report.malformed_sent += 1
        elif item[0] in seen:
            report.duplicates_sent += 1
        else:
            seen.add(item[0])
            if item[2]:
                report.families[item[2]] += 1
    headers = {"content-type": "application/json"}
    if token:
        headers["x-webhook-token"] = token
    started = time.monotonic()
    total = len(bodies)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=timeout, limits=limits) as client:

        async def worker() -> None:
            while True:
                try:
                    body, key, _family = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                extra = dict(headers)
                if signing_secret:
                    with contextlib.suppress(UnicodeDecodeError):
                        extra.update(
                            signature_headers(
                                signing_secret, str(uuid.uuid4()), int(time.time()), body
                            )
                        )
                for attempt in range(retries + 1):
                    try:
                        response = await client.post(url, content=body, headers=extra)
                        status = response.status_code
                        break
                    except httpx.HTTPError as exc:
                        status, error = 0, type(exc).__name__
                        if attempt < retries:
                            report.retried += 1
                            await asyncio.sleep(retry_delay)
                if status == 0:
                    report.errors[error] += 1
                report.sent += 1
                report.statuses[status] += 1
                if on_progress is not None:
                    on_progress(report.sent, total)
                if status == 200 and key is not None:
                    report.acknowledged_keys.add(key)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    report.seconds = time.monotonic() - started
    return report
