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


Body = tuple[bytes, str | None, str | None]
"""One body of a burst: ``(body, request id or None for a malformed body, family or None)``."""


@dataclass
class SendReport:
    """What one burst did.

    Attributes:
        sent: POSTs made (duplicates and malformed included).
        statuses: Final answers by HTTP status (0 = no answer: the connection failed or timed
            out on the last attempt).
        errors: The transport errors behind the 0s, by exception class (``ReadTimeout``, ...).
        retried: Attempts repeated after a transport error (``send_burst(retries=...)``).
        acknowledged_keys: The receiver's keys of the bodies it answered 200: the ``eventKey``
            of its JSON answer, or the body's request id when the answer names none.
        acknowledged_ids: The request ids (a burst's second item) of the bodies answered 200.
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
    acknowledged_ids: set[str] = field(default_factory=set)
    malformed_sent: int = 0
    duplicates_sent: int = 0
    families: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def count_bodies(self, bodies: Sequence[Body]) -> None:
        """Count the malformed bodies (request id ``None``), the repeated ones and the distinct
        events per family of ``bodies``."""
        seen: set[bytes] = set()
        for body, request_id, family in bodies:
            if request_id is None:
                self.malformed_sent += 1
            elif body in seen:
                self.duplicates_sent += 1
            else:
                seen.add(body)
                if family:
                    self.families[family] += 1

    def record(self, request_id: str | None, answer: httpx.Response | None, error: str) -> None:
        """Count one body's final ``answer`` (``None``: no answer, for transport ``error``)."""
        status = answer.status_code if answer is not None else 0
        if answer is None:
            self.errors[error] += 1
        self.sent += 1
        self.statuses[status] += 1
        if answer is not None and status == 200 and request_id is not None:
            self.acknowledged_ids.add(request_id)
            self.acknowledged_keys.add(answered_key(answer) or request_id)


def answered_key(answer: httpx.Response) -> str | None:
    """The ``eventKey`` a receiver's JSON answer names (the key it stored the event under), or
    ``None`` when the answer is not a JSON object naming one as text."""
    try:
        named = answer.json()
    except ValueError:
        return None
    key = named.get("eventKey") if isinstance(named, dict) else None
    return key if isinstance(key, str) else None


async def send_burst(
    url: str,
    bodies: Sequence[Body],
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
        bodies: ``(body, request id or None, family or None)`` tuples, from
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
    report.count_bodies(bodies)
    queue: asyncio.Queue[Body] = asyncio.Queue()
    for item in bodies:
        queue.put_nowait(item)
    headers = {"content-type": "application/json", **({"x-webhook-token": token} if token else {})}
    started = time.monotonic()
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=timeout, limits=limits) as client:

        async def worker() -> None:
            while True:
                try:
                    body, request_id, _family = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                request_headers = signed(headers, signing_secret, body)
                answer, error = await post_with_retries(
                    client, url, body, request_headers, retries, retry_delay, report
                )
                report.record(request_id, answer, error)
                if on_progress is not None:
                    on_progress(report.sent, len(bodies))

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    report.seconds = time.monotonic() - started
    return report


def signed(headers: dict[str, str], secret: str | None, body: bytes) -> dict[str, str]:
    """``headers`` plus the Standard Webhooks signature headers of ``body`` (a new message id,
    the current time) when ``secret`` is set and ``body`` is UTF-8; else a copy of ``headers``."""
    out = dict(headers)
    if secret:
        with contextlib.suppress(UnicodeDecodeError):
            out.update(signature_headers(secret, str(uuid.uuid4()), int(time.time()), body))
    return out


async def post_with_retries(
    client: httpx.AsyncClient,
    url: str,
    body: bytes,
    headers: dict[str, str],
    retries: int,
    retry_delay: float,
    report: SendReport,
) -> tuple[httpx.Response | None, str]:
    """POST ``body``, again up to ``retries`` times (``retry_delay`` seconds apart, each counted
    in ``report.retried``) while no answer comes. Returns ``(answer, "")``, or ``(None, <class
    name of the last transport error>)``."""
    error = ""
    for attempt in range(retries + 1):
        try:
            return await client.post(url, content=body, headers=headers), ""
        except httpx.HTTPError as exc:
            error = type(exc).__name__
            if attempt < retries:
                report.retried += 1
                await asyncio.sleep(retry_delay)
    return None, error
