"""HTTP client for the Connecteam REST API: one request answered by a JSON object, over the
client's paging (:mod:`.paging`), authentication (:mod:`.auth`), rate-limit pacing and retries
(:mod:`.pacing`).

Follows the provider's rules as published in its OpenAPI spec
(``spec/connecteam-openapi.json``) and documentation (``spec/provider-notes.md``).
Up to ``max_in_flight`` requests are in flight at once (the next pages of a listing whose total
is known, parallel fan-outs: :mod:`.fanout`), each within the rate-limit budget. Errors are those
of :mod:`.errors`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import TracebackType
from typing import Any

import httpx

from .answers import Body, body_records, decode_object
from .auth import Scopes, TokenAuth
from .errors import ConnecteamAPIError, ConnecteamConfigError, RetryableError, status_hint
from .pacing import ANSWERED_HOSTS, RETRYABLE_STATUS, ClientStats
from .paging import ListingSizes, Paging
from .registry import DEFAULT_BASE_URL, OAUTH_SCOPES, SCOPE_BY_PATH, Stream
from .transient import OUTAGES


def require_credentials(
    api_key: str | None, client_id: str | None, client_secret: str | None
) -> None:
    """Check that an account's credentials are given: an API key, or an OAuth 2.0 client id
    and secret. Makes no request.

    Raises:
        ConnecteamConfigError: Neither is given; the message names the settings to set.
    """
    if not api_key and not (client_id and client_secret):
        raise ConnecteamConfigError(
            "No Connecteam credentials: set SOURCES__CONNECTEAM__API_KEY (or "
            "SOURCES__CONNECTEAM__CLIENT_ID and SOURCES__CONNECTEAM__CLIENT_SECRET for OAuth "
            "2.0), or put them under [sources.connecteam] in .dlt/secrets.toml"
        )


class ConnecteamClient(Paging, TokenAuth):
    """A synchronous, connection-pooling client of one Connecteam account; its list endpoints
    are read with :meth:`~.paging.Paging.paginate` and :meth:`~.paging.Paging.pages`.

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
        max_outage: Seconds the provider may answer nothing but 429 and 5xx, or nothing, before
            every request stops retrying with :class:`~.errors.ProviderUnavailableError`
            (:mod:`.transient`: the bound on how long a dead provider holds a run).
        max_in_flight: Requests in flight at once at most (>= 1; 1: one after another), when
            the provider answers slower than the budget's pace: the next pages of a listing
            whose ``paging.total`` is known and the per-parent fan-outs (:mod:`.fanout`).
        max_pages: Pages one listing may take at most before its stream fails as a listing
            that does not end (:class:`~.paging.ListingGuard`).
        max_page_growth: A listing's further bound, as a multiple of the pages its first
            ``paging.total`` or its stream's largest listing last run says (at least 100
            pages; 0: none).
        transport: Optional httpx transport (tests, benchmarks).
        scopes: OAuth 2.0 scopes to ask for (:data:`Scopes`; default: the scope of every stream,
            :data:`~sources.connecteam.registry.OAUTH_SCOPES`). A callable is called once per
            token request. No scope at all sends no ``scope`` parameter: the provider then
            issues its default for the app.
        now: The run's "as of" instant, epoch seconds (UTC): :attr:`core.project.Project.now`,
            which every resource reading it (windows, tombstones, pull stamps) places its rows
            by, so one run has one instant; default the real time when the client is made (a
            client used for single requests). Pacing, back-off and token expiry use the real
            clock.

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
        max_outage: float = 600.0,
        max_in_flight: int = 4,
        max_pages: int = 2000,
        max_page_growth: int = 10,
        transport: httpx.BaseTransport | None = None,
        scopes: Scopes = OAUTH_SCOPES,
        now: float | None = None,
    ) -> None:
        require_credentials(api_key, client_id, client_secret)
        self.now = time.time() if now is None else now
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
        self.max_outage = max_outage
        self.max_in_flight = max(1, max_in_flight)
        self.max_pages = max(1, max_pages)
        self.max_page_growth = max(0, max_page_growth)
        self.listing_sizes = ListingSizes()
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
        with self.answer(method, path, params, json=json, endpoint=template) as body:
            return decode_object(body, template, method)

    def get_records(
        self, endpoint: Stream, path: str, params: Mapping[str, Any] | None = None
    ) -> Iterator[list[Any]]:
        """GET one unpaged answer of ``endpoint`` and yield its records (``data.<data_key>``):
        one list, or batches of a body too large to decode at once
        (:func:`~.answers.body_records`). Raises as :meth:`request`, and
        ``ConnecteamAPIError`` when the answer holds no list there."""
        with self.answer("GET", path, params, endpoint=endpoint.path) as body:
            yield from body_records(body, endpoint)

    def answer(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        json: Any = None,
        endpoint: str | None = None,
    ) -> Body:
        """The body of a successful answer (:class:`~.answers.Body`: within a bound of memory),
        retrying as :meth:`request` does; the caller closes it (it is a context manager)."""
        template = endpoint or path
        return self.call(
            lambda: self._send(method, path, params, template, json), template, method,
            f"check SOURCES__CONNECTEAM__BASE_URL ({self.base_url}) and the network",
        )  # fmt: skip

    # -- internals -------------------------------------------------------------------------------

    def _send(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None,
        template: str,
        body: Any = None,
    ) -> Body:
        response, received = self._dispatch(method, path, params, template, body)
        status = response.status_code
        if status == 401 and self._token is not None and self._api_key is None:
            # An expired or revoked OAuth token: fetch a new one and retry once.
            self._token = None
            response, received = self._dispatch(method, path, params, template, body)
            status = response.status_code
        if status in RETRYABLE_STATUS:
            if status == 429:
                self.stats.throttled += 1
            raise RetryableError(status, template, self.stats.rate_limit.minute_reset)
        if status >= 400 or received is None:
            hint = status_hint(status)
            if status == 403 and self._api_key is None and template in SCOPE_BY_PATH:
                hint = f"the access token lacks the scope {SCOPE_BY_PATH[template]}"
            raise ConnecteamAPIError(template, status, self.detail(response), hint, method=method)
        return received

    def _dispatch(
        self, method: str, path: str, params: Mapping[str, Any] | None, template: str, body: Any
    ) -> tuple[httpx.Response, Body | None]:
        """Send one request within the rate-limit budget and record its answer's figures; a
        2xx answer's body is read into a :class:`~.answers.Body` (the response's own
        ``content`` is read only for other statuses)."""
        headers = self.auth_headers()  # before taking budget: a failed token fetch takes none
        with self._slots:  # at most max_in_flight requests at once
            self.pace()
            with self._lock:
                self.stats.requests[template] += 1
            try:
                request = self._http.build_request(
                    method, path, params=_query(params), headers=headers, json=body
                )
                response = self._http.send(request, stream=True)
                try:
                    if 200 <= response.status_code < 300:
                        received: Body | None = Body(response.iter_bytes(), response.status_code)
                    else:
                        received = None
                        response.read()
                finally:
                    response.close()
            finally:
                with self._lock:
                    self._in_flight -= 1
        with self._lock:
            self.stats.rate_limit.update(response.headers, self._in_flight)
        ANSWERED_HOSTS.add(self.base_url)
        if response.status_code not in RETRYABLE_STATUS:
            OUTAGES.answered(self.base_url)
        return response, received

    def upload(self, url: str, content: bytes, content_type: str) -> None:
        """PUT ``content`` to a pre-signed upload URL (cloud storage: no API credentials sent),
        retrying on 5xx, timeouts and dropped connections.

        Raises:
            ConnecteamAPIError: The storage refused the upload or kept failing.
        """

        def put() -> None:
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

        self.call(put, "pre-signed upload URL", "PUT", "check the network", provider=False)


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
