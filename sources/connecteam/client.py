"""HTTP client for the Connecteam REST API: requests and paging, over the client's
authentication (:mod:`.auth`), rate-limit pacing and retries (:mod:`.pacing`).

Follows the provider's rules as published in its OpenAPI spec
(``tests/data/connecteam-openapi.json``) and documentation (``tests/data/provider-notes.md``):
paged lists take ``limit``/``offset``; a page shorter than ``limit`` is the last one, and when the
answer carries ``paging.total`` no page past it is asked for. Up to ``max_in_flight`` requests are
in flight at once (the next pages of a listing whose total is known, parallel fan-outs:
:mod:`.fanout`), each within the rate-limit budget. Errors are those of :mod:`.errors`.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any

import httpx
import orjson

from .auth import Scopes, TokenAuth
from .errors import (
    ConnecteamAPIError,
    ConnecteamConfigError,
    ParentNotFoundError,
    RetryableError,
    status_hint,
)
from .fanout import PagesAhead
from .pacing import ANSWERED_HOSTS, RETRYABLE_STATUS, ClientStats
from .registry import DEFAULT_BASE_URL, OAUTH_SCOPES, SCOPE_BY_PATH, Stream

logger = logging.getLogger(__name__)


class ConnecteamClient(TokenAuth):
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
        max_in_flight: Requests in flight at once at most (>= 1; 1: one after another), when
            the provider answers slower than the budget's pace: the next pages of a listing
            whose ``paging.total`` is known and the per-parent fan-outs (:mod:`.fanout`).
        transport: Optional httpx transport (tests, benchmarks).
        scopes: OAuth 2.0 scopes to ask for (:data:`Scopes`; default: the scope of every stream,
            :data:`~sources.connecteam.registry.OAUTH_SCOPES`). A callable is called once per
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
        max_in_flight: int = 4,
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
        self.max_in_flight = max(1, max_in_flight)
        self._slots = threading.BoundedSemaphore(self.max_in_flight)
        self.stats = ClientStats()
        self._lock = threading.Lock()
        self._token_lock = threading.Lock()
        self._in_flight = 0
        self._http = httpx.Client(
            base_url=self.base_url,
            # a connect that takes 10 s will not succeed: a firewall or a wrong region
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
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

    @contextmanager
    def sent_once(self) -> Iterator[None]:
        """Inside the block, send each request once (no retry of its own): for writes a repeat
        could apply twice, whose caller settles a lost answer by reading back instead."""
        saved = self.max_attempts
        self.max_attempts = 1
        try:
            yield
        finally:
            self.max_attempts = saved

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
            HostUnreachableError: No connection could be opened to the base URL's host, which
                has not answered any request of this process (after a few quick attempts).
        """
        template = endpoint or path
        retrying = self.retrying()
        try:
            for attempt in retrying:
                with attempt:
                    return self._send(method, path, params, template, json)
        except RetryableError as exc:
            raise ConnecteamAPIError(
                template,
                exc.status,
                f"still failing after {self.max_attempts} attempts",
                "the provider is unavailable or over its rate limit; run the sync again later",
            ) from None
        except httpx.TransportError as exc:
            self.raise_if_never_answered(exc)
            raise ConnecteamAPIError(
                template,
                None,
                f"{type(exc).__name__} after {self.max_attempts} attempts",
                f"check SOURCES__CONNECTEAM__BASE_URL ({self.base_url}) and the network",
            ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def paginate(
        self,
        endpoint: Stream,
        params: Mapping[str, Any] | None = None,
        path_params: Mapping[str, Any] | None = None,
    ) -> Iterator[list[dict[str, Any]]]:
        """Yield the pages of one list endpoint, spending the fewest requests the provider allows.

        ``limit`` is the endpoint's maximum; page ``n`` uses ``offset = n * limit``; the
        listing is sorted by the stream's stable key (``sort``, ascending) unless ``params``
        names a ``sort`` of its own. Paging stops
        at the first page holding fewer than ``limit`` records, and without asking for a page past
        ``paging.total`` when the answer carries it. For ``N`` records that is ``N // limit + 1``
        requests without a total, ``max(1, ceil(N / limit))`` with one. An endpoint that is not
        paged is asked once.

        Args:
            endpoint: The stream whose endpoint to list (:data:`.registry.STREAMS`).
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
        endpoint: Stream,
        params: Mapping[str, Any] | None = None,
        path_params: Mapping[str, Any] | None = None,
        *,
        ahead: bool = True,
    ) -> Iterator[tuple[list[dict[str, Any]], int | None]]:
        """As :meth:`paginate`, yielding ``(records, paging.total or None)`` per page, in order.

        Once an answer carried ``paging.total``, the next pages up to it are asked for ahead, up
        to ``max_in_flight`` at once (:class:`~.fanout.PagesAhead`); a caller that may stop
        early passes ``ahead=False`` (no page past the one it stops at is asked for).

        Raises:
            ParentNotFoundError: A per-parent endpoint (``path_params`` given) answered 404.
            ConnecteamAPIError: As :meth:`get`, and when an answer lacks ``data.<data_key>``.
        """
        path = endpoint.path.format(**(path_params or {}))
        try:
            yield from self._pages(endpoint, path, dict(params or {}), ahead)
        except ConnecteamAPIError as exc:
            if exc.status != 404 or not path_params or isinstance(exc, ParentNotFoundError):
                raise
            parent = ", ".join(f"{name} {value}" for name, value in path_params.items())
            raise ParentNotFoundError(endpoint.path, exc.detail, parent) from None

    def _pages(
        self, endpoint: Stream, path: str, query: dict[str, Any], ahead: bool
    ) -> Iterator[tuple[list[dict[str, Any]], int | None]]:
        if endpoint.max_limit is None:
            yield self._records(self.get(path, query, endpoint=endpoint.path), endpoint), None
            return
        limit = endpoint.max_limit
        offset = 0
        if endpoint.sort and "sort" not in query:
            query = {**query, "sort": endpoint.sort, "order": "asc"}

        def fetch(at: int) -> dict[str, Any]:
            return self.get(path, {**query, "limit": limit, "offset": at}, endpoint=endpoint.path)

        asked = PagesAhead(fetch, self.max_in_flight if ahead else 1)
        try:
            while True:
                body = asked.get(offset)
                records = self._records(body, endpoint)
                total = (body.get("paging") or {}).get("total")
                total = total if isinstance(total, int) and not isinstance(total, bool) else None
                offset += limit
                if len(records) < limit or (total is not None and offset >= total):
                    yield records, total
                    return
                if total is not None:
                    asked.plan(range(offset, total, limit))
                yield records, total
        finally:
            asked.close()

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

    def _records(self, body: dict[str, Any], endpoint: Stream) -> list[dict[str, Any]]:
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
            raise RetryableError(status, template, self.stats.rate_limit.minute_reset)
        if status >= 400:
            hint = status_hint(status)
            if status == 403 and self._api_key is None and template in SCOPE_BY_PATH:
                hint = f"the access token lacks the scope {SCOPE_BY_PATH[template]}"
            raise ConnecteamAPIError(template, status, self.detail(response), hint, method=method)
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
        headers = self.auth_headers()  # before taking budget: a failed token fetch takes none
        with self._slots:  # at most max_in_flight requests at once
            self.pace()
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
        ANSWERED_HOSTS.add(self.base_url)
        return response

    def upload(self, url: str, content: bytes, content_type: str) -> None:
        """PUT ``content`` to a pre-signed upload URL (cloud storage: no API credentials sent),
        retrying on 5xx, timeouts and dropped connections.

        Raises:
            ConnecteamAPIError: The storage refused the upload or kept failing.
        """
        for attempt in self.retrying(counted=False):
            with attempt:
                response = self._storage.put(
                    url, content=content, headers={"content-type": content_type}
                )
                if response.status_code in RETRYABLE_STATUS:
                    raise RetryableError(response.status_code, "upload URL", None)
                if response.status_code >= 400:
                    raise ConnecteamAPIError(
                        "pre-signed upload URL", response.status_code, response.text[:200],
                        method="PUT",
                    )  # fmt: skip


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
