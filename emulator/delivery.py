"""The emulator's webhook delivery: POSTs each event to every subscription that asks for it, as
the provider does, on a background thread.

The provider's rule (``sources/connecteam/spec/provider-notes.md``): an answer within 30 s,
else or on a non-2xx answer up to 3 retries 60 s apart; both figures come from
:class:`~emulator.state.ServerOptions` (``webhook_timeout``, ``webhook_retries``,
``webhook_retry_seconds``) so tests need not wait minutes. A subscription with a ``secretKey``
gets Standard Webhooks signature headers (:func:`~emulator.webhook_sender.signature_headers`).
Deliveries go to loopback hosts only: the emulator never sends anything off the machine (a
subscription elsewhere is counted as ``skipped_remote``).
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson

from .webhook_sender import signature_headers
from .webhook_store import LOOPBACK_HOSTS, WebhookStore

PayloadFor = Callable[[int], dict[str, Any] | None]
"""Builds an event's payload for a subscription's ``webhookVersion`` (``None``: no event in
that version)."""


class Deliverer:
    """A queue of webhook deliveries and the daemon thread that sends them.

    Args:
        store: The subscriptions to match events against.
        settings: Returns ``(timeout s, retries, seconds between retries)`` when asked, so a
            changed :class:`~emulator.state.ServerOptions` applies at once.

    Attributes:
        stats: ``queued`` (deliveries planned), ``delivered`` (2xx), ``retried`` (attempts
            repeated), ``failed`` (given up after the last retry), ``skipped_remote``.
    """

    def __init__(self, store: WebhookStore, settings: Callable[[], tuple[float, int, float]]):
        self.store = store
        self.settings = settings
        self.stats: Counter[str] = Counter()
        self._heap: list[tuple[float, int, dict[str, Any], bytes, int]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._busy = 0
        self._thread: threading.Thread | None = None

    def publish(
        self, event_type: str, family: str, entity_id: str | None, payload_for: PayloadFor
    ) -> int:
        """Queue one event for every matching subscription; returns the deliveries queued.

        Args:
            event_type: The ``eventType`` (:func:`emulator.spec_webhooks.catalogue`).
            family: Its family (:data:`emulator.spec_webhooks.FAMILIES`).
            entity_id: The time clock or scheduler the event belongs to, as a string (matched
                against a subscription's ``entityId``), or ``None``.
            payload_for: The payload for a subscription's ``webhookVersion``.
        """
        queued = 0
        for webhook in self.store.matching(event_type, family, entity_id):
            payload = payload_for(int(webhook.get("webhookVersion") or 1))
            if payload is None:
                continue
            host = urlsplit(str(webhook["url"])).hostname
            if host not in LOOPBACK_HOSTS:
                self.stats["skipped_remote"] += 1
                continue
            self._push(time.monotonic(), webhook, orjson.dumps(payload), 0)
            self.stats["queued"] += 1
            queued += 1
        return queued

    def pending(self) -> int:
        """Deliveries not yet finished (queued, waiting for a retry, or in flight)."""
        with self._cond:
            return len(self._heap) + self._busy

    def wait(self, timeout: float = 60.0) -> bool:
        """Block until every queued delivery finished (delivered or given up); whether it did
        within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._heap or self._busy:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.1))
        return True

    def _push(self, due: float, webhook: dict[str, Any], body: bytes, attempt: int) -> None:
        with self._cond:
            heapq.heappush(self._heap, (due, next(self._seq), webhook, body, attempt))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True, name="webhooks")
                self._thread.start()
            self._cond.notify_all()

    def _run(self) -> None:
        with httpx.Client() as client:
            while True:
                with self._cond:
                    while not self._heap or self._heap[0][0] > time.monotonic():
                        wait = self._heap[0][0] - time.monotonic() if self._heap else None
                        self._cond.wait(wait)
                    _, _, webhook, body, attempt = heapq.heappop(self._heap)
                    self._busy += 1
                try:
                    self._attempt(client, webhook, body, attempt)
                finally:
                    with self._cond:
                        self._busy -= 1
                        self._cond.notify_all()

    def _attempt(
        self, client: httpx.Client, webhook: dict[str, Any], body: bytes, attempt: int
    ) -> None:
        timeout, retries, retry_seconds = self.settings()
        headers = {"content-type": "application/json"}
        try:
            if webhook.get("secretKey"):
                headers.update(
                    signature_headers(
                        str(webhook["secretKey"]), f"msg_{uuid.uuid4().hex}", int(time.time()), body
                    )
                )
            status = client.post(
                str(webhook["url"]), content=body, headers=headers, timeout=timeout
            ).status_code
        except Exception:  # noqa: BLE001 - a bad URL or secret fails this delivery, never the thread
            status = 0
        if 200 <= status < 300:
            self.stats["delivered"] += 1
        elif attempt < retries:
            self.stats["retried"] += 1
            self._push(time.monotonic() + retry_seconds, webhook, body, attempt + 1)
        else:
            self.stats["failed"] += 1
