"""Authentication of the Connecteam client: the ``X-API-KEY`` header, or an OAuth 2.0 access
token (client-credentials grant: ``POST /oauth/v1/token`` with HTTP Basic
``client_id:client_secret``; Bearer token, 24 h), asking for the scopes of the streams synced.

Secrets (the API key, the client secret, the access token) are only ever placed in request
headers; they never appear in URLs, log lines or exception messages (:meth:`TokenAuth.detail`).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence

import httpx
import orjson

from .errors import (
    ConnecteamAPIError,
    OAuthScopeError,
    RetryableError,
    validation_detail,
)
from .pacing import ANSWERED_HOSTS, RETRYABLE_STATUS, Pacing
from .registry import OAUTH_TOKEN_PATH
from .transient import OUTAGES

ScopeNeeds = Mapping[str, Sequence[str]]
"""OAuth 2.0 scopes to ask for, each with what needs it (stream names; may be empty)."""
Scopes = str | ScopeNeeds | Callable[[], ScopeNeeds]
"""What a client asks the token endpoint for: space-separated scopes, a :data:`ScopeNeeds`, or a
callable giving one when the first token is fetched (the streams a sync selected)."""
_SCOPE_NAME = re.compile(r"[A-Za-z_]+\.[A-Za-z_]+")


class TokenAuth(Pacing):
    """The client's credentials and OAuth token handling (a base class of
    :class:`~sources.connecteam.client.ConnecteamClient`, which sets these attributes)."""

    _http: httpx.Client
    _api_key: str | None
    _client_id: str | None
    _client_secret: str | None
    _scopes: Scopes
    _asked: dict[str, list[str]]
    _token: str | None
    _token_expires: float
    _token_lock: threading.Lock
    _secrets: list[str]

    def auth_headers(self) -> dict[str, str]:
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
            HostUnreachableError: No connection could be opened to a host that never answered.
        """
        assert self._client_id and self._client_secret
        response = self.call(
            self._request_token, OAUTH_TOKEN_PATH, "POST", "could not reach the token endpoint"
        )
        if response.status_code in (400, 403):
            refused = self._refused_scopes(response)
            if refused is not None:
                raise OAuthScopeError(self.detail(response), response.status_code, refused)
        if response.status_code != 200:
            raise ConnecteamAPIError(
                OAUTH_TOKEN_PATH,
                response.status_code,
                self.detail(response),
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
        """One token request; a 429 or 5xx raises :class:`RetryableError`."""
        with self._lock:
            self.stats.token_requests += 1
        self._asked = self.scope_needs()
        form = {"grant_type": "client_credentials"}
        if self._asked:
            form["scope"] = " ".join(self._asked)
        response = self._http.post(
            OAUTH_TOKEN_PATH, auth=(self._client_id or "", self._client_secret or ""), data=form
        )
        ANSWERED_HOSTS.add(self.base_url)
        if response.status_code in RETRYABLE_STATUS:
            raise RetryableError(response.status_code, OAUTH_TOKEN_PATH, None)
        OUTAGES.answered(self.base_url)
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

    def detail(self, response: httpx.Response) -> str:
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
