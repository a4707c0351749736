"""Rate-limit pacing and retries of the Connecteam client.

Every answer carries ``x-ratelimit-{minute,day}-{limit,remaining,reset}`` (reset in UTC epoch
seconds). The client waits for the reset instead of sending a request the budget cannot take, so a
sync that fits the budget never receives a 429 (:class:`RateLimitState`, :meth:`Pacing.pace`).
429, 5xx, timeouts and dropped connections are retried with a jittered exponential back-off, or
until the reset when the budget is spent, in the client's one retry loop (:meth:`Pacing.call`),
within the provider's outage budget (:mod:`.transient`).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from .contract import Quarantine
from .errors import (
    ConnecteamAPIError,
    HostUnreachableError,
    ProviderUnavailableError,
    RateLimitExhaustedError,
    RetryableError,
    describe,
)
from .transient import OUTAGES, RETRYABLE_STATUS

__all__ = ["RETRYABLE_STATUS", "ClientStats", "Pacing", "RateLimitState"]

logger = logging.getLogger("sources.connecteam.client")
T = TypeVar("T")

RESET_MARGIN = 0.05
"""Seconds past a window's announced reset before the client counts on the new budget."""


@dataclass
class RateLimitState:
    """The budget the provider reported in its last answer (``x-ratelimit-*`` headers).

    Attributes are ``None`` until an answer carried the header. Resets are UTC epoch seconds.
    """

    minute_limit: int | None = None
    minute_remaining: int | None = None
    minute_reset: float | None = None
    day_limit: int | None = None
    day_remaining: int | None = None
    day_reset: float | None = None
    ended: dict[str, float] = field(default_factory=dict)
    """Per period, the reset of the last window known to be over."""

    def update(self, headers: Mapping[str, str], in_flight: int = 0) -> None:
        """Read the ``x-ratelimit-*`` headers of one answer; absent or garbled ones are ignored.

        With several requests in flight, answers arrive out of order and each counts only the
        requests the provider had seen: within one window the lower ``remaining`` wins (an
        answer never gives back budget already spent), and an answer from a window that has
        already ended is ignored. ``in_flight`` other requests may not be counted in the answer
        yet, so they are taken off the reported budget.
        """
        for period in ("minute", "day"):
            values: dict[str, float | None] = {}
            for part in ("limit", "remaining", "reset"):
                raw = headers.get(f"x-ratelimit-{period}-{part}")
                try:
                    values[part] = float(raw) if raw is not None else None
                except ValueError:
                    values[part] = None
            if values["limit"] is not None:
                setattr(self, f"{period}_limit", int(values["limit"]))
            remaining, reset = values["remaining"], values["reset"]
            if remaining is None or reset is None:
                continue
            current = getattr(self, f"{period}_remaining")
            current_reset = getattr(self, f"{period}_reset")
            ended = current_reset if current_reset is not None else self.ended.get(period)
            if (ended is not None and reset < ended) or reset == self.ended.get(period):
                continue  # a late answer from a window that is over
            remaining -= in_flight
            if current is not None and (current_reset is None or reset == current_reset):
                remaining = min(remaining, current)
            setattr(self, f"{period}_remaining", int(remaining))
            setattr(self, f"{period}_reset", reset)

    def take(self, now: float, in_flight: int = 0) -> float:
        """Spend one request if the budget allows it now; else return the seconds to wait.

        When a window's reset has passed, the budget starts again at the window's limit, counted
        down locally until an answer of the new window reports the provider's own figure. Before
        any answer has told the budget, one request at a time probes it.
        """
        if self.minute_remaining is None and self.day_remaining is None and in_flight > 0:
            return 0.01
        for period in ("minute", "day"):
            reset = getattr(self, f"{period}_reset")
            limit = getattr(self, f"{period}_limit")
            if reset is not None and now >= reset + RESET_MARGIN and limit is not None:
                setattr(self, f"{period}_remaining", limit)
                setattr(self, f"{period}_reset", None)
                self.ended[period] = reset
        wait = 0.0
        for period in ("minute", "day"):
            remaining = getattr(self, f"{period}_remaining")
            if remaining is None or remaining > 0:
                continue
            reset = getattr(self, f"{period}_reset")
            wait = max(wait, (reset + RESET_MARGIN - now) if reset is not None else 0.05)
        if wait > 0:
            return wait
        for period in ("minute", "day"):
            remaining = getattr(self, f"{period}_remaining")
            if remaining is not None:
                setattr(self, f"{period}_remaining", remaining - 1)
        return 0.0


@dataclass
class ClientStats:
    """What the client did, for run summaries and benchmarks.

    Attributes:
        requests: Requests sent to list endpoints, by endpoint path template (retries included).
        retries: Requests repeated after a 429, a 5xx, a timeout or a dropped connection.
        throttled: 429 answers received.
        token_requests: OAuth token requests.
        paced_seconds: Seconds spent waiting for the rate-limit budget to reset.
        rate_limit: The budget reported by the last answer.
        untyped_values: Per table, values kept in its ``untyped_values`` column because they did
            not fit their column's type (see :mod:`sources.connecteam.arrow_rows`).
        skipped_parents: Parents that vanished between their listing and their child request
            (404), e.g. ``"scheduler 9001"``: their children were skipped this run.
        quarantine: The listed items that could not be loaded (:mod:`~.contract`).
        repeated_keys: Per table, rows dropped because a row with their key came earlier in the
            same extract (the pipeline's guard, :mod:`pipelines.unique_keys`).
    """

    requests: Counter[str] = field(default_factory=Counter)
    retries: int = 0
    throttled: int = 0
    token_requests: int = 0
    paced_seconds: float = 0.0
    rate_limit: RateLimitState = field(default_factory=RateLimitState)
    untyped_values: Counter[str] = field(default_factory=Counter)
    skipped_parents: list[str] = field(default_factory=list)
    quarantine: Quarantine = field(default_factory=Quarantine)
    repeated_keys: Counter[str] = field(default_factory=Counter)

    @property
    def total_requests(self) -> int:
        """All requests sent to list endpoints."""
        return sum(self.requests.values())


CONNECT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout)
"""A connection that could not be opened: refused, a name that does not resolve, a TLS
handshake that failed (``ConnectError``), or no answer to the connect (``ConnectTimeout``)."""

UNREACHABLE_ATTEMPTS = 3
"""Attempts to open a connection to a host that never answered before the client gives up with
:class:`~sources.connecteam.errors.HostUnreachableError`: a few, for a blip, not the full
``max_attempts``."""

ANSWERED_HOSTS: set[str] = set()
"""Base URLs that answered (any HTTP status) a request of this process: a failed connect to one
of them later is a dropped network, retried in full."""


class Pacing:
    """The pacing and retry policy of :class:`~sources.connecteam.client.ConnecteamClient`
    (a base class: the client sets these attributes).

    Attributes:
        stats: Figures of the client's work; ``stats.rate_limit`` is the budget.
        base_url: The API's base URL (the key of :data:`ANSWERED_HOSTS`).
        max_attempts: Attempts per request on 429, 5xx, timeouts and dropped connections.
        backoff_base: Seconds of the first exponential back-off step (jittered, doubling).
        backoff_max: Longest single back-off wait in seconds.
        max_rate_limit_wait: Longest wait for a rate-limit reset in seconds.
        max_outage: Seconds the provider may answer nothing but 429 and 5xx (or nothing) before
            the client stops retrying (:class:`~.errors.ProviderUnavailableError`).
    """

    stats: ClientStats
    base_url: str
    max_attempts: int
    backoff_base: float
    backoff_max: float
    max_rate_limit_wait: float
    max_outage: float
    _lock: threading.Lock
    _in_flight: int

    def pace(self) -> None:
        """Take one request from the budget, sleeping until the reset when it is spent.

        Checking and spending happen under one lock, so threads sharing the client never send
        more requests than the budget holds.
        """
        while True:
            with self._lock:
                wait = self.stats.rate_limit.take(time.time(), self._in_flight)
                if wait <= 0:
                    self._in_flight += 1
                    return
            if wait > self.max_rate_limit_wait:
                raise RateLimitExhaustedError(
                    f"the Connecteam rate-limit budget is spent for the next {wait:.0f} s (longer "
                    f"than max_rate_limit_wait={self.max_rate_limit_wait:.0f} s); run the sync "
                    "after the reset or raise the plan's limits"
                )
            if wait > 1:
                logger.info("rate-limit budget spent; waiting %.1f s for the reset", wait)
            with self._lock:
                self.stats.paced_seconds += wait
            time.sleep(wait)

    def call(
        self, send: Callable[[], T], endpoint: str, method: str, hint: str, *, provider: bool = True
    ) -> T:
        """The client's one retry loop: ``send`` (one attempt, raising
        :class:`~.errors.RetryableError` for a status of :data:`RETRYABLE_STATUS`) until it
        returns, as :meth:`retrying` allows.

        Args:
            send: One attempt; its other exceptions (a 4xx answer, a spent budget) end the loop.
            endpoint: The path template named in errors, e.g. ``/users/v1/users``.
            method: The HTTP method named in errors.
            hint: What to check when no answer arrived at all (a setting, the network).
            provider: Whether ``send`` talks to the provider (``base_url``), whose failures
                run its outage clock; ``False`` for cloud storage (uploads), which are not
                counted as retries either.

        Raises:
            ProviderUnavailableError: The provider's outage outlasted ``max_outage``.
            ConnecteamAPIError: Still 429, 5xx or no answer after ``max_attempts``.
            HostUnreachableError: No connection could be opened to a host that never answered.
        """
        try:
            for attempt in self.retrying(counted=provider, provider=provider):
                with attempt:
                    return send()
        except RetryableError as exc:
            self._raise_if_down(endpoint, exc.status, method, provider)
            raise ConnecteamAPIError(
                endpoint, exc.status, f"still failing after {self.max_attempts} attempts",
                "the provider is unavailable or over its rate limit; run the sync again later",
                method=method,
            ) from None  # fmt: skip
        except httpx.TransportError as exc:
            self.raise_if_never_answered(exc)
            self._raise_if_down(endpoint, None, method, provider)
            raise ConnecteamAPIError(
                endpoint, None, f"{type(exc).__name__} after {self.max_attempts} attempts", hint,
                method=method,
            ) from None  # fmt: skip
        raise AssertionError("unreachable")  # pragma: no cover

    def _raise_if_down(
        self, endpoint: str, status: int | None, method: str, provider: bool
    ) -> None:
        if not provider:
            return
        lasted = OUTAGES.lasted(self.base_url)
        if lasted >= self.max_outage:
            raise ProviderUnavailableError(endpoint, status, lasted, method) from None

    def retrying(self, counted: bool = True, provider: bool = True) -> Retrying:
        """The retry policy of every call: 429, 5xx, timeouts and dropped connections, up to
        ``max_attempts``, with :meth:`backoff`; ``counted`` retries are logged and counted in
        :attr:`ClientStats.retries`. A connection that cannot be opened to a host that never
        answered in this process stops after :data:`UNREACHABLE_ATTEMPTS` (a setting or the
        network to fix, not an outage to wait out). A ``provider`` call also stops once the
        provider's outage (:data:`~.transient.OUTAGES`, which each failure extends) has lasted
        ``max_outage`` seconds."""
        most = stop_after_attempt(self.max_attempts)

        def stop(state: RetryCallState) -> bool:
            if provider and OUTAGES.failed(self.base_url) >= self.max_outage:
                return True
            return most(state) or (
                state.attempt_number >= UNREACHABLE_ATTEMPTS and self.never_connected(state)
            )

        return Retrying(
            retry=retry_if_exception_type((RetryableError, httpx.TransportError)),
            stop=stop,
            wait=self.backoff,
            before_sleep=self._before_retry if counted else None,
            reraise=True,
        )

    def never_connected(self, state: RetryCallState) -> bool:
        """Whether ``state`` failed to open a connection to a host that has not answered any
        request of this process (:data:`ANSWERED_HOSTS`)."""
        exc = state.outcome.exception() if state.outcome else None
        return isinstance(exc, CONNECT_ERRORS) and self.base_url not in ANSWERED_HOSTS

    def raise_if_never_answered(self, exc: BaseException) -> None:
        """Raise :class:`~sources.connecteam.errors.HostUnreachableError` when ``exc`` is a
        connection that could not be opened (:data:`CONNECT_ERRORS`) to a host that has not
        answered any request of this process; otherwise return (the caller reports ``exc``)."""
        if isinstance(exc, CONNECT_ERRORS) and self.base_url not in ANSWERED_HOSTS:
            host = httpx.URL(self.base_url).netloc.decode()
            raise HostUnreachableError(host, self.base_url, exc) from None

    def backoff(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        budget = self.stats.rate_limit
        spent = budget.minute_remaining is not None and budget.minute_remaining <= 0
        if (
            isinstance(exc, RetryableError)
            and exc.status == 429
            and exc.reset is not None
            and spent
        ):
            # The budget is spent: the next request can succeed only after the reset.
            until_reset = exc.reset - time.time()
            if 0 < until_reset <= self.max_rate_limit_wait:
                return until_reset + random.uniform(0.02, 0.25)
        ceiling = min(self.backoff_max, self.backoff_base * 2 ** (state.attempt_number - 1))
        return random.uniform(ceiling / 2, ceiling)

    def _before_retry(self, state: RetryCallState) -> None:
        self.stats.retries += 1
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        logger.warning(
            "retrying after %s (attempt %d of %d, waiting %.2f s)",
            describe(exc),
            state.attempt_number,
            self.max_attempts,
            wait,
        )
