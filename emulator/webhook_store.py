"""The account's webhook subscriptions as the emulator holds them (:class:`WebhookStore`), shared
by the settings API (:mod:`emulator.subscriptions`) and the deliverer (:mod:`emulator.delivery`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from .spec_webhooks import feature_families

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
CREATOR_USER_ID = 1000
"""The user the emulator names as every webhook's creator (``userId``)."""


@dataclass
class WebhookStore:
    """The account's webhook subscriptions.

    Attributes:
        webhooks: By id: the stored ``WebhookResponse`` fields plus ``secretKey``.
        writes: Writes accepted, as ``(method, webhook id)``, in order.
        lock: Guards both.
    """

    webhooks: dict[int, dict[str, Any]] = field(default_factory=dict)
    writes: list[tuple[str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    _next_id: int = 1

    def create(self, fields: dict[str, Any], now: int, retry_limit: int) -> dict[str, Any]:
        """Store a new webhook from validated ``fields``; its stored record."""
        with self.lock:
            webhook_id = self._next_id
            self._next_id += 1
            record = {
                "id": webhook_id,
                "userId": CREATOR_USER_ID,
                "timeCreated": now,
                "retryLimit": retry_limit,
                "origin": "organic",
                **fields,
            }
            self.webhooks[webhook_id] = record
            self.writes.append(("POST", webhook_id))
            return record

    def matching(self, event_type: str, family: str, entity_id: str | None) -> list[dict[str, Any]]:
        """Enabled webhooks that ask for ``event_type`` of ``family`` on ``entity_id`` (a
        webhook with no entity receives every entity's events)."""
        families = feature_families()
        with self.lock:
            return [
                dict(w)
                for w in self.webhooks.values()
                if not w.get("isDisabled")
                and family in families.get(str(w.get("featureType")), ())
                and event_type in (w.get("eventTypes") or [])
                and (w.get("entityId") is None or w.get("entityId") == entity_id)
            ]


def public(record: dict[str, Any]) -> dict[str, Any]:
    """A stored webhook as the API answers it: without its secret key."""
    return {k: v for k, v in record.items() if k != "secretKey"}
