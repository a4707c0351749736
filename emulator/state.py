"""What one running emulator holds: its options (:class:`ServerOptions`) and its live state
(:class:`EmulatorState`: the account's data, access tokens, uploads, counters)."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .data import Dataset, EmulatorConfig
from .delivery import Deliverer
from .webhook_store import WebhookStore


@dataclass
class ServerOptions:
    """Behaviour of the emulated provider beyond its data.

    Attributes:
        api_key: The account's API key (``X-API-KEY``).
        oauth_clients: OAuth 2.0 clients: ``{client_id: {"secret": ..., "scopes": [...],
            "document_permissions": {...}}}``; ``scopes`` are what the client may be granted.
        oauth_strict_scopes: Refuse token requests naming an unknown scope or one beyond the
            client's with RFC 6749 ``invalid_scope`` (400) instead of the spec's 403.
        document_permissions: What the API key may do per document pack id:
            ``{"<packId>": "approve" | "upload"}``; a pack not listed is refused (403).
        minute_limit: Requests per rate-limit window (the provider's "per minute" budget).
        day_limit: Requests per UTC day.
        window_seconds: Length of the "minute" window in seconds (60 like the provider).
        latency: Seconds added to every API answer (``wfm-sync emulator --latency-ms`` / 1000).
        fault_rate: Fraction (0..1) of API requests answered with a fault.
        fault_seed: Seed of the fault draw.
        paging_total: Whether paged answers carry ``paging.total``.
        failing_paths: Requests answered with a fixed status instead, as an outage of one
            listing would be: ``{"/jobs/v1/jobs?offset=500": 503}``. A key is a request path,
            optionally with query parameters the request must carry too (so a listing can
            fail after its first pages).
        delete_while_paging: Listings (``shifts``, ``user_documents``) that lose the first
            record of a first page they serve, right after serving it, and how many times: a
            deletion between two pages, which shifts the later pages' offsets by one.
        webhook_retries: Further deliveries of an event whose delivery failed (the
            provider: 3), also answered as every webhook's ``retryLimit``.
        webhook_retry_seconds: Seconds between deliveries of one event (the provider: 60).
        webhook_timeout: Seconds a delivery waits for the receiver's answer (the provider: 30).
        user_documents_untold: List user documents without ``fileId`` and ``updatedAt``, as a
            provider whose listing cannot tell whose entry a document holds.
    """

    api_key: str = "emulator-key"
    oauth_clients: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            "emulator-client": {
                "secret": "emulator-secret",
                "scopes": [
                    "users.read",
                    "forms.read",
                    "schedule.read",
                    "documents.write",
                    "attachments.write",
                    "attachments.read",
                    "time_clock.read",
                    "jobs.read",
                    "time_off.read",
                    "quick_tasks.read",
                    "pay_rates.read",
                    "company_policies.read",
                    "sales_data.read",
                    "settings.read",
                    "settings.write",
                    "settings.delete",
                ],
                "document_permissions": {"1": "approve", "2": "upload", "3": "upload"},
            }
        }
    )
    oauth_strict_scopes: bool = False
    document_permissions: dict[str, str] = field(
        default_factory=lambda: {"1": "approve", "2": "upload", "3": "upload"}
    )
    minute_limit: int = 100
    day_limit: int = 10_000
    window_seconds: float = 60.0
    latency: float = 0.0
    fault_rate: float = 0.0
    fault_seed: int = 7
    paging_total: bool = False
    failing_paths: dict[str, int] = field(default_factory=dict)
    delete_while_paging: dict[str, int] = field(default_factory=dict)
    webhook_retries: int = 3
    webhook_retry_seconds: float = 60.0
    webhook_timeout: float = 30.0
    user_documents_untold: bool = False


class ShiftSort(StrEnum):
    """The shifts listing's ``sort`` parameter."""

    created_at = "created_at"
    updated_at = "updated_at"


class SortOrder(StrEnum):
    """The shifts listing's ``order`` parameter."""

    asc = "asc"
    desc = "desc"


class EmulatorState:
    """Everything the emulator holds: data, options, tokens, counters.

    Attributes:
        config: Size and seed of the account (changed in place by ``POST /_emulator/reset``).
        options: Provider behaviour (likewise).
        dataset: The account's records.
        tokens: Access tokens: ``{token: (granted scopes, expiry epoch seconds, client id)}``.
        files: Uploads by file id: ``{fileName, fileType, featureType, size, completed}``.
        entries: Every accepted document-entry PUT: ``{userId, documentId, at}``.
        lock: Guards the counters and the dataset against concurrent requests.
        fault_rng: The fault mode's draw.
        windows: Requests per rate-limit window: ``{("m" | "d", window number): count}``.
        requests: Requests per spec path template (since the last counter reset).
        statuses: Answers per HTTP status (0: connection dropped on purpose).
        faults: Faults injected, by kind (``429``, ``500``, ``503``, ``drop``).
        in_flight: API requests under way (received, not yet answered).
        peak_in_flight: The most API requests under way at once since the last counter reset.
        webhook_store: The account's webhook subscriptions (kept across ``regenerate``).
        deliverer: Sends the events of changes (``POST /_emulator/mutate``) to them.
    """

    def __init__(self, config: EmulatorConfig, options: ServerOptions) -> None:
        self.config = config
        self.options = options
        self.dataset = Dataset.generate(config)
        self.tokens: dict[str, tuple[set[str], float, str]] = {}
        self.files: dict[str, dict[str, Any]] = {}
        self.entries: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.fault_rng = random.Random(options.fault_seed)
        self.windows: Counter[tuple[str, int]] = Counter()
        self.requests: Counter[str] = Counter()
        self.statuses: Counter[int] = Counter()
        self.faults: Counter[str] = Counter()
        self.in_flight = 0
        self.peak_in_flight = 0
        self._listing_cache: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
        self.webhook_store = WebhookStore()
        self.deliverer = Deliverer(
            self.webhook_store,
            lambda: (
                self.options.webhook_timeout,
                self.options.webhook_retries,
                self.options.webhook_retry_seconds,
            ),
        )

    def take_paging_deletion(self, listing: str) -> bool:
        """Whether ``listing`` should lose a record now
        (:attr:`ServerOptions.delete_while_paging`); counts one down if so."""
        with self.lock:
            left = self.options.delete_while_paging.get(listing, 0)
            if left > 0:
                self.options.delete_while_paging[listing] = left - 1
            return left > 0

    def reset_counters(self) -> None:
        """Forget request counts (not rate-limit windows)."""
        with self.lock:
            self.requests.clear()
            self.statuses.clear()
            self.faults.clear()
            self.peak_in_flight = self.in_flight

    def regenerate(self) -> None:
        """Generate the account again from :attr:`config`, restart the fault draw and forget the
        rate-limit windows (the caller holds :attr:`lock`)."""
        self.dataset = Dataset.generate(self.config)
        self.fault_rng = random.Random(self.options.fault_seed)
        self.windows.clear()
        self._listing_cache.clear()

    def cached_listing(
        self, key: tuple[Any, ...], build: Callable[[], list[dict[str, Any]]]
    ) -> list[dict[str, Any]]:
        """``build()``'s records, built once per dataset version and ``key`` (a large listing's
        sort costs once, not once per page); the caller must not change the list."""
        full = ("listing", self.dataset.version, *key)
        cached = self._listing_cache.get(full)
        if cached is None:
            cached = build()
            if len(self._listing_cache) > 64:
                self._listing_cache.clear()
            self._listing_cache[full] = cached
        return cached

    def shift_listing(
        self, scheduler_id: int, start: int, end: int, sort: ShiftSort, order: SortOrder
    ) -> list[dict[str, Any]]:
        """Shift rows of one scheduler overlapping ``[start, end)`` (epoch seconds), sorted by
        ``sort`` then id; cached per dataset version."""
        key = (self.dataset.version, scheduler_id, start, end, sort, order)
        cached = self._listing_cache.get(key)
        if cached is not None:
            return cached
        rows = [
            r
            for r in self.dataset.shifts[scheduler_id]
            if r["endTime"] > start and r["startTime"] < end
        ]
        field_name = "creationTime" if sort is ShiftSort.created_at else "updateTime"
        rows.sort(key=lambda r: (r[field_name], r["id"]), reverse=order is SortOrder.desc)
        if len(self._listing_cache) > 64:
            self._listing_cache.clear()
        self._listing_cache[key] = rows
        return rows
