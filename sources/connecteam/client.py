"""HTTP client for the Connecteam REST API: authentication, rate-limit pacing, retries and paging.

Follows the provider's rules as published in ``shared/reference/`` (README and OpenAPI spec):

* Authentication by the ``X-API-KEY`` header, or OAuth 2.0 client credentials
  (``POST /oauth/v1/token`` with HTTP Basic ``client_id:client_secret``; Bearer token, 24 h).
* Every answer carries ``x-ratelimit-{minute,day}-{limit,remaining,reset}`` (reset in UTC epoch
  seconds). The client waits for the reset instead of sending a request the budget cannot take, so a
  sync that fits the budget never receives a 429.
* Paged lists take ``limit``/``offset``; a page shorter than ``limit`` is the last one, and when the
  answer carries ``paging.total`` no page past it is asked for.

Secrets (the API key, the OAuth client secret and access token) are only ever placed in request
headers; they never appear in URLs, log lines or exception messages.
"""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import httpx
import orjson
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
)

from .settings import DEFAULT_BASE_URL, ENDPOINTS, OAUTH_SCOPES, OAUTH_TOKEN_PATH, Endpoint

logger = logging.getLogger(__name__)

ScopeNeeds = Mapping[str, Sequence[str]]
"""OAuth 2.0 scopes to ask for, each with what needs it (stream names; may be empty)."""
Scopes = str | ScopeNeeds | Callable[[], ScopeNeeds]
"""What a client asks the token endpoint for: space-separated scopes, a :data:`ScopeNeeds`, or a
callable giving one when the first token is fetched (the streams a sync selected)."""
SCOPE_BY_PATH = {e.path: e.scope for e in ENDPOINTS.values() if e.scope}
"""The scope each list endpoint requires, by path template (named in 403 hints)."""
_SCOPE_NAME = re.compile(r"[A-Za-z_]+\.[A-Za-z_]+")

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
RESET_MARGIN = 0.05
"""Seconds past a window's announced reset before the client counts on the new budget."""


class ConnecteamError(Exception):
    """Base class of the errors this client raises."""


class ConnecteamConfigError(ConnecteamError):
    """The client was given no usable credentials or base URL."""


class ConnecteamAPIError(ConnecteamError):
    """The provider answered with a status that retrying cannot fix (any 4xx but 429), or with a
    body that is not the documented envelope, or kept failing after every retry.

    Attributes:
        endpoint: The endpoint path template, e.g. ``/users/v1/users``.
        status: The HTTP status, or ``None`` when no answer arrived.
        detail: A short excerpt of the provider's error body (never a secret).
    """

    def __init__(
        self, endpoint: str, status: int | None, detail: str, hint: str = "", method: str = "GET"
    ) -> None:
        self.endpoint = endpoint
        self.status = status
        self.detail = detail
        self.method = method
        where = f"{method} {endpoint}"
        what = f"answered HTTP {status}" if status is not None else "failed"
        message = f"{where} {what}: {detail}"
        if hint:
            message += f" ({hint})"
        super().__init__(message)


class ParentNotFoundError(ConnecteamAPIError):
    """A per-parent list (the shifts of a scheduler, the submissions of a form, ...) answered
    404: the parent vanished between its listing and this request. Resources skip that parent
    for this run (:meth:`ConnecteamClient.skip_parent`); other parents and streams go on.

    Attributes:
        parent: What the parent is and its id, e.g. ``"schedulerId 9001"``.
    """

    def __init__(self, endpoint: str, detail: str, parent: str) -> None:
        self.parent = parent
        super().__init__(endpoint, 404, detail, f"{parent} no longer exists at the provider")


class OAuthScopeError(ConnecteamAPIError):
    """The token endpoint refused scopes the client asked for: RFC 6749 §5.2 ``invalid_scope``
    (HTTP 400), or the spec's 403 "Unauthorized scopes requested".

    Attributes:
        refused: The refused scopes, each with the streams that need it: the scopes the answer
            names, or every scope asked for when it names none.
    """

    def __init__(self, detail: str, status: int, refused: dict[str, list[str]]) -> None:
        self.refused = refused
        named = "; ".join(
            f"scope {scope}" + (f" (needed by stream {', '.join(streams)})" if streams else "")
            for scope, streams in refused.items()
        )
        hint = (
            f"the OAuth client may not have {named}. Sync only the streams its scopes cover "
            "(wfm-sync sync --streams ...), or use an OAuth app granted the scope (Connecteam: "
            "Integration Center, OAuth 2.0; an app's scopes are chosen when it is created) or an "
            "API key"
        )
        super().__init__(OAUTH_TOKEN_PATH, status, detail, hint, method="POST")


class RateLimitExhaustedError(ConnecteamError):
    """The account's rate-limit budget is spent for longer than the client may wait."""


def find_connecteam_error(exc: BaseException | None) -> ConnecteamError | None:
    """The :class:`ConnecteamError` behind ``exc`` (dlt wraps source errors in its own), if any."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, ConnecteamError):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


class _RetryableError(Exception):
    """Internal: an answer worth retrying (429 or 5xx)."""

    def __init__(self, status: int, endpoint: str, reset: float | None) -> None:
        super().__init__(f"HTTP {status} from {endpoint}")
        self.status = status
        self.endpoint = endpoint
        self.reset = reset


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
    """

    requests: Counter[str] = field(default_factory=Counter)
    retries: int = 0
    throttled: int = 0
    token_requests: int = 0
    paced_seconds: float = 0.0
    rate_limit: RateLimitState = field(default_factory=RateLimitState)
    untyped_values: Counter[str] = field(default_factory=Counter)
    skipped_parents: list[str] = field(default_factory=list)

    @property
    def total_requests(self) -> int:
        """All requests sent to list endpoints."""
        return sum(self.requests.values())


class ConnecteamClient:
    """A synchronous, connection-pooling client of one Connecteam account.

    Args:
        base_url: API host, e.g. ``https://api.connecteam.com``.
        api_key: The account's API key (sent as ``X-API-KEY``). Takes precedence over OAuth.
        client_id: OAuth 2.0 client id, used with ``client_secret`` when no API key is given.
        client_secret: OAuth 2.0 client secret.
        timeout: Seconds to wait for connect, read and write of one request.
        max_attempts: Attempts per request before giving up on 429, 5xx, timeouts and dropped
            connections.
        backoff_base: Seconds of the first exponential back-off step (jittered, doubling).
        backoff_max: Longest single back-off wait in seconds.
        max_rate_limit_wait: Longest wait for a rate-limit reset in seconds; beyond it
            :class:`RateLimitExhaustedError` is raised (a spent daily budget should fail the night's
            run loudly, not stall it for hours).
        transport: Optional httpx transport (tests, benchmarks).
        scopes: OAuth 2.0 scopes to ask for (:data:`Scopes`; default: the scope of every stream,
            :data:`~sources.connecteam.settings.OAUTH_SCOPES`). A callable is called once per
            token request. No scope at all sends no ``scope`` parameter: the provider then
            issues its default for the app.

    Raises:
        ConnecteamConfigError: Neither an API key nor an OAuth client id and secret were given.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        client_id: str | None = None,
        client_secret: str | None = None,
        *,
        timeout: float = 30.0,
        max_attempts: int = 8,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        max_rate_limit_wait: float = 900.0,
        transport: httpx.BaseTransport | None = None,
        scopes: Scopes = OAUTH_SCOPES,
    ) -> None:
        if not api_key and not (client_id and client_secret):
            raise ConnecteamConfigError(
                "No Connecteam credentials: set SOURCES__CONNECTEAM__API_KEY (or "
                "SOURCES__CONNECTEAM__CLIENT_ID and SOURCES__CONNECTEAM__CLIENT_SECRET for OAuth "
                "2.0), or put them under [sources.connecteam] in .dlt/secrets.toml"
            )
        if not base_url.startswith(("http://", "https://")):
            raise ConnecteamConfigError(
                "SOURCES__CONNECTEAM__BASE_URL must start with http:// or https://, "
                f"got {base_url!r}"
            )
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key or None
        self._client_id = client_id
        self._client_secret = client_secret
        self._scopes = scopes
        self._asked: dict[str, list[str]] = {}
        self._token: str | None = None
        self._token_expires = 0.0
        self._secrets = [s for s in (api_key, client_secret) if s]
        self.max_attempts = max(1, max_attempts)
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_rate_limit_wait = max_rate_limit_wait
        self.stats = ClientStats()
        self._lock = threading.Lock()
        self._token_lock = threading.Lock()
        self._in_flight = 0
        self._http = httpx.Client(
            base_url=self.base_url,
            timeout=httpx.Timeout(timeout),
            headers={"accept": "application/json", "user-agent": "wfm-sync"},
            transport=transport,
        )
        # pre-signed upload URLs: cloud storage, never the API's credentials or base URL; one
        # pooled client (a new client per file costs ~0.1 s of TLS context set-up)
        self._storage = httpx.Client(timeout=httpx.Timeout(120), transport=transport)

    # -- lifecycle -------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the pooled connections."""
        self._http.close()
        self._storage.close()

    def __enter__(self) -> ConnecteamClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- public API ------------------------------------------------------------------------------

    def get(
        self, path: str, params: Mapping[str, Any] | None = None, *, endpoint: str | None = None
    ) -> dict[str, Any]:
        """GET one answer as a JSON object; see :meth:`request`."""
        return self.request("GET", path, params, endpoint=endpoint)

    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        json: Any = None,
        endpoint: str | None = None,
    ) -> dict[str, Any]:
        """One request answered by a JSON object, pacing, authenticating and retrying as needed.

        Only idempotent calls should be retried blindly; the provider's PUTs are, and a retried
        ``generate-upload-url`` POST at worst leaves an unused upload slot.

        Args:
            method: ``GET``, ``POST`` or ``PUT``.
            path: Path below the base URL with placeholders filled, e.g.
                ``/scheduler/v1/schedulers/7/shifts``.
            params: Query parameters; lists repeat the parameter (``userIds=1&userIds=2``).
            json: A JSON body.
            endpoint: The path template used in statistics and messages (default ``path``).

        Returns:
            The decoded JSON object.

        Raises:
            ConnecteamAPIError: A 4xx other than 429 (e.g. 401 wrong key, 403 missing scope,
                422 invalid parameter), a body that is not a JSON object, or retries exhausted.
            RateLimitExhaustedError: The budget resets later than ``max_rate_limit_wait``.
        """
        template = endpoint or path
        retrying = self._retrying()
        try:
            for attempt in retrying:
                with attempt:
                    return self._send(method, path, params, template, json)
        except _RetryableError as exc:
            raise ConnecteamAPIError(
                template,
                exc.status,
                f"still failing after {self.max_attempts} attempts",
                "the provider is unavailable or over its rate limit; run the sync again later",
            ) from None
        except httpx.TransportError as exc:
            raise ConnecteamAPIError(
                template,
                None,
                f"{type(exc).__name__} after {self.max_attempts} attempts",
                f"check SOURCES__CONNECTEAM__BASE_URL ({self.base_url}) and the network",
            ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def paginate(
        self,
        endpoint: Endpoint,
        params: Mapping[str, Any] | None = None,
        path_params: Mapping[str, Any] | None = None,
    ) -> Iterator[list[dict[str, Any]]]:
        """Yield the pages of one list endpoint, spending the fewest requests the provider allows.

        ``limit`` is the endpoint's maximum; page ``n`` uses ``offset = n * limit``. Paging stops
        at the first page holding fewer than ``limit`` records, and without asking for a page past
        ``paging.total`` when the answer carries it. For ``N`` records that is ``N // limit + 1``
        requests without a total, ``max(1, ceil(N / limit))`` with one. An endpoint that is not
        paged is asked once.

        Args:
            endpoint: The endpoint from :mod:`sources.connecteam.settings`.
            params: Extra query parameters (filters, windows).
            path_params: Values for the placeholders in ``endpoint.path``.

        Yields:
            Each page's list of records (``data[<endpoint.data_key>]``), as the provider sent them.

        Raises:
            ConnecteamAPIError: As :meth:`get`, and when an answer lacks ``data.<data_key>``.
        """
        for records, _total in self.pages(endpoint, params, path_params):
            yield records

    def pages(
        self,
        endpoint: Endpoint,
        params: Mapping[str, Any] | None = None,
        path_params: Mapping[str, Any] | None = None,
    ) -> Iterator[tuple[list[dict[str, Any]], int | None]]:
        """As :meth:`paginate`, yielding ``(records, paging.total or None)`` per page; the caller
        may stop early (no further page is asked for).

        Raises:
            ParentNotFoundError: A per-parent endpoint (``path_params`` given) answered 404.
            ConnecteamAPIError: As :meth:`get`, and when an answer lacks ``data.<data_key>``.
        """
        path = endpoint.path.format(**(path_params or {}))
        try:
            yield from self._pages(endpoint, path, dict(params or {}))
        except ConnecteamAPIError as exc:
            if exc.status != 404 or not path_params or isinstance(exc, ParentNotFoundError):
                raise
            parent = ", ".join(f"{name} {value}" for name, value in path_params.items())
            raise ParentNotFoundError(endpoint.path, exc.detail, parent) from None

    def _pages(
        self, endpoint: Endpoint, path: str, query: dict[str, Any]
    ) -> Iterator[tuple[list[dict[str, Any]], int | None]]:
        if endpoint.max_limit is None:
            yield self._records(self.get(path, query, endpoint=endpoint.path), endpoint), None
            return
        limit = endpoint.max_limit
        offset = 0
        while True:
            body = self.get(
                path, {**query, "limit": limit, "offset": offset}, endpoint=endpoint.path
            )
            records = self._records(body, endpoint)
            total = (body.get("paging") or {}).get("total")
            total = total if isinstance(total, int) and not isinstance(total, bool) else None
            yield records, total
            offset += limit
            if len(records) < limit or (total is not None and offset >= total):
                return

    def skip_parent(self, exc: ParentNotFoundError, stream: str) -> None:
        """Note that ``stream`` skipped a vanished parent this run (logged as a warning, listed
        in :attr:`ClientStats.skipped_parents`)."""
        logger.warning(
            "%s: skipped %s: it vanished since it was listed (%s answered 404)",
            stream, exc.parent, exc.endpoint,
        )  # fmt: skip
        with self._lock:
            self.stats.skipped_parents.append(f"{stream}: {exc.parent}")

    # -- internals -------------------------------------------------------------------------------

    def _records(self, body: dict[str, Any], endpoint: Endpoint) -> list[dict[str, Any]]:
        data = body.get("data")
        records = data.get(endpoint.data_key) if isinstance(data, dict) else None
        if not isinstance(records, list):
            raise ConnecteamAPIError(
                endpoint.path,
                200,
                f"the answer has no list at data.{endpoint.data_key}",
                "is SOURCES__CONNECTEAM__BASE_URL a Connecteam API host?",
            )
        return records

    def _send(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None,
        template: str,
        body: Any = None,
    ) -> dict[str, Any]:
        response = self._dispatch(method, path, params, template, body)
        status = response.status_code
        if status == 401 and self._token is not None and self._api_key is None:
            # An expired or revoked OAuth token: fetch a new one and retry once.
            self._token = None
            response = self._dispatch(method, path, params, template, body)
            status = response.status_code
        if status in RETRYABLE_STATUS:
            if status == 429:
                self.stats.throttled += 1
            raise _RetryableError(status, template, self.stats.rate_limit.minute_reset)
        if status >= 400:
            hint = _hint(status)
            if status == 403 and self._api_key is None and template in SCOPE_BY_PATH:
                hint = f"the access token lacks the scope {SCOPE_BY_PATH[template]}"
            raise ConnecteamAPIError(template, status, self._detail(response), hint, method=method)
        try:
            decoded = decode_json(response.content)
        except ValueError:
            raise ConnecteamAPIError(
                template, status, "the answer is not JSON", method=method
            ) from None
        if not isinstance(decoded, dict):
            raise ConnecteamAPIError(
                template, status, "the answer is not a JSON object", method=method
            )
        return decoded

    def _dispatch(
        self, method: str, path: str, params: Mapping[str, Any] | None, template: str, body: Any
    ) -> httpx.Response:
        """Send one request within the rate-limit budget and record its answer's figures."""
        headers = self._auth_headers()  # before taking budget: a failed token fetch takes none
        self._pace()
        with self._lock:
            self.stats.requests[template] += 1
        try:
            response = self._http.request(
                method, path, params=_query(params), headers=headers, json=body
            )
        finally:
            with self._lock:
                self._in_flight -= 1
        with self._lock:
            self.stats.rate_limit.update(response.headers, self._in_flight)
        return response

    def upload(self, url: str, content: bytes, content_type: str) -> None:
        """PUT ``content`` to a pre-signed upload URL (cloud storage: no API credentials sent),
        retrying on 5xx, timeouts and dropped connections.

        Raises:
            ConnecteamAPIError: The storage refused the upload or kept failing.
        """
        for attempt in self._retrying(counted=False):
            with attempt:
                response = self._storage.put(
                    url, content=content, headers={"content-type": content_type}
                )
                if response.status_code in RETRYABLE_STATUS:
                    raise _RetryableError(response.status_code, "upload URL", None)
                if response.status_code >= 400:
                    raise ConnecteamAPIError(
                        "pre-signed upload URL", response.status_code, response.text[:200],
                        method="PUT",
                    )  # fmt: skip

    def _pace(self) -> None:
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

    def _retrying(self, counted: bool = True) -> Retrying:
        """The retry policy of every call: 429, 5xx, timeouts and dropped connections, up to
        ``max_attempts``, with :meth:`_backoff`; ``counted`` retries are logged and counted in
        :attr:`ClientStats.retries`."""
        return Retrying(
            retry=retry_if_exception_type((_RetryableError, httpx.TransportError)),
            stop=stop_after_attempt(self.max_attempts),
            wait=self._backoff,
            before_sleep=self._before_retry if counted else None,
            reraise=True,
        )

    def _backoff(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        budget = self.stats.rate_limit
        spent = budget.minute_remaining is not None and budget.minute_remaining <= 0
        if (
            isinstance(exc, _RetryableError)
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
            _describe(exc),
            state.attempt_number,
            self.max_attempts,
            wait,
        )

    def _auth_headers(self) -> dict[str, str]:
        if self._api_key:
            return {"X-API-KEY": self._api_key}
        with self._token_lock:  # parallel resources: one token request, not one each
            if self._token is None or time.time() >= self._token_expires:
                self._fetch_token()
        return {"Authorization": f"Bearer {self._token}"}

    def _fetch_token(self) -> None:
        """Fetch an OAuth access token (client credentials), retried like any request on 429,
        5xx, timeouts and dropped connections.

        Raises:
            ConnecteamAPIError: The credentials were refused (any other status), the answer
                held no token, or the endpoint kept failing.
        """
        assert self._client_id and self._client_secret
        attempts = self._retrying()
        try:
            for attempt in attempts:
                with attempt:
                    response = self._request_token()
        except _RetryableError as exc:
            raise ConnecteamAPIError(
                OAUTH_TOKEN_PATH, exc.status, f"still failing after {self.max_attempts} attempts",
                "the token endpoint is unavailable; run the sync again later", method="POST",
            ) from None  # fmt: skip
        except httpx.TransportError as exc:
            raise ConnecteamAPIError(
                OAUTH_TOKEN_PATH, None, f"{type(exc).__name__} after {self.max_attempts} attempts",
                "could not reach the token endpoint", method="POST",
            ) from None  # fmt: skip
        if response.status_code in (400, 403):
            refused = self._refused_scopes(response)
            if refused is not None:
                raise OAuthScopeError(self._detail(response), response.status_code, refused)
        if response.status_code != 200:
            raise ConnecteamAPIError(
                OAUTH_TOKEN_PATH,
                response.status_code,
                self._detail(response),
                "check SOURCES__CONNECTEAM__CLIENT_ID and SOURCES__CONNECTEAM__CLIENT_SECRET",
                method="POST",
            )
        try:
            body = orjson.loads(response.content)
            token, expires_in = str(body["access_token"]), float(body.get("expires_in", 3600))
        except (orjson.JSONDecodeError, TypeError, KeyError, ValueError):
            raise ConnecteamAPIError(
                OAUTH_TOKEN_PATH, 200, "the answer holds no access_token", method="POST"
            ) from None
        self._token = token
        self._secrets.append(token)
        self._token_expires = time.time() + max(60.0, expires_in - 60.0)

    def scope_needs(self) -> dict[str, list[str]]:
        """The scopes the next token request asks for, each with the streams needing it."""
        scopes = self._scopes() if callable(self._scopes) else self._scopes
        if isinstance(scopes, str):
            return {scope: [] for scope in sorted(set(scopes.split()))}
        return {scope: list(needed) for scope, needed in sorted(scopes.items())}

    def _request_token(self) -> httpx.Response:
        """One token request; a 429 or 5xx raises :class:`_RetryableError`."""
        with self._lock:
            self.stats.token_requests += 1
        self._asked = self.scope_needs()
        form = {"grant_type": "client_credentials"}
        if self._asked:
            form["scope"] = " ".join(self._asked)
        response = self._http.post(
            OAUTH_TOKEN_PATH, auth=(self._client_id or "", self._client_secret or ""), data=form
        )
        if response.status_code in RETRYABLE_STATUS:
            raise _RetryableError(response.status_code, OAUTH_TOKEN_PATH, None)
        return response

    def _refused_scopes(self, response: httpx.Response) -> dict[str, list[str]] | None:
        """The asked-for scopes a token answer refuses (each with the streams needing it), or
        ``None`` when the answer is no scope refusal.

        A refusal is a 400 whose body's ``error`` is ``invalid_scope`` (RFC 6749 §5.2), or a
        403 (the spec's "Unauthorized scopes requested"). The scopes are those of the asked ones
        that the answer names; all asked ones when it names none.
        """
        try:
            body = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            body = None
        error = body.get("error") if isinstance(body, dict) else None
        if response.status_code == 400 and error != "invalid_scope":
            return None
        named = set(_SCOPE_NAME.findall(response.text))
        asked = self._asked
        return {s: n for s, n in asked.items() if s in named} or dict(asked)

    def _detail(self, response: httpx.Response) -> str:
        """A secret-free account of an error body: every field a 422 ``HTTPValidationError``
        names (:func:`validation_detail`), else a short excerpt."""
        text = (
            validation_detail(response.content)
            or response.text[:300].strip()
            or response.reason_phrase
        )
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text


_LONG_DIGITS = re.compile(rb"[0-9]{19,}")


def decode_json(content: bytes) -> Any:
    """Decode a JSON answer; integers beyond 64 bits stay exact integers.

    orjson (fast) reads such integers as floats, losing digits; an answer holding a run of 19 or
    more digits is therefore decoded by the standard library instead.

    Raises:
        ValueError: The content is not JSON.
    """
    if _LONG_DIGITS.search(content):
        return json.loads(content)
    return orjson.loads(content)


def validation_detail(content: bytes, most: int = 20) -> str | None:
    """The fields of an ``HTTPValidationError`` body (the spec's 422 answer,
    ``{"detail": [{loc, msg, type}, ...]}``), one ``loc: msg`` each, ``loc`` joined by dots
    (``body.fileId: field required; path.userId: ...``); at most ``most`` fields, each message
    cut at 200 characters. ``None`` for any other body."""
    try:
        body = json.loads(content)
    except ValueError:
        return None
    items = body.get("detail") if isinstance(body, dict) else None
    if not isinstance(items, list) or not items:
        return None
    fields = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("loc"), list):
            return None
        where = ".".join(str(part) for part in item["loc"]) or "(request)"
        fields.append(f"{where}: {str(item.get('msg') or item.get('type') or 'invalid')[:200]}")
    more = f"; and {len(fields) - most} more" if len(fields) > most else ""
    return "; ".join(fields[:most]) + more


def _query(params: Mapping[str, Any] | None) -> list[tuple[str, Any]]:
    """Encode lists as repeated parameters and booleans as ``true``/``false``."""
    pairs: list[tuple[str, Any]] = []
    for key, value in (params or {}).items():
        if value is None:
            continue
        values = value if isinstance(value, list | tuple) else [value]
        for item in values:
            pairs.append((key, str(item).lower() if isinstance(item, bool) else item))
    return pairs


def _hint(status: int) -> str:
    if status == 401:
        return "the API key or OAuth credentials were refused; check SOURCES__CONNECTEAM__API_KEY"
    if status == 403:
        return "the credentials lack the scope this endpoint needs"
    if status == 404:
        return "check SOURCES__CONNECTEAM__BASE_URL"
    if status == 422:
        return "the provider refused the request's parameters or body, field by field as named"
    return ""


def _describe(exc: BaseException | None) -> str:
    if isinstance(exc, _RetryableError):
        return str(exc)
    return type(exc).__name__ if exc else "an error"
