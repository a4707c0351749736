"""What one running emulator holds: its live state (:class:`EmulatorState`: the account's data,
its options (:class:`~emulator.options.ServerOptions`), access tokens, uploads, counters)."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from .data import Dataset, EmulatorConfig
from .delivery import Deliverer
from .options import ServerOptions, ShiftSort, SortOrder
from .webhook_store import WebhookStore


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
        (:attr:`~emulator.options.ServerOptions.delete_while_paging`); counts one down if so."""
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
