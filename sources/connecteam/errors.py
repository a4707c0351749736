"""Errors the Connecteam client raises, and the secret-free descriptions of error answers.

Every message names the endpoint (path template) and the HTTP status the provider answered, with
a hint of what to check (the ``SOURCES__CONNECTEAM__*`` setting, the OAuth scope); never a secret.
"""

from __future__ import annotations

import json

from .registry import OAUTH_TOKEN_PATH
from .transient import is_transient_status


class ConnecteamError(Exception):
    """Base class of the errors this client raises.

    Attributes:
        transient: Whether a retry of the step may heal it (:func:`.transient.is_transient`);
            ``False`` unless a subclass says otherwise.
    """

    transient: bool = False


class ConnecteamConfigError(ConnecteamError):
    """A setting of the source is unusable: no credentials, a bad base URL, a listing version
    the provider has not got."""


class HostUnreachableError(ConnecteamConfigError):
    """No connection could be opened to the configured host before it ever answered (refused,
    a name that does not resolve, a TLS failure, a connect that timed out): a setting or the
    network to fix, not a provider outage, so nothing retries it beyond a few quick attempts.

    Attributes:
        host: The host (and port) of ``SOURCES__CONNECTEAM__BASE_URL``.
    """

    def __init__(self, host: str, base_url: str, exc: BaseException) -> None:
        self.host = host
        super().__init__(
            f"cannot connect to {host} (SOURCES__CONNECTEAM__BASE_URL={base_url}): "
            f"{likely_cause(exc)}"
        )


def likely_cause(exc: BaseException) -> str:
    """What a failed connect most likely means, from the transport's exception."""
    text = f"{type(exc).__name__} {exc}".lower()
    if "ssl" in text or "certificate" in text or "tls" in text:
        return (
            "the TLS handshake failed (the host does not speak HTTPS, or its certificate is "
            "not trusted)"
        )
    if (
        "name or service not known" in text
        or "nodename nor servname" in text
        or ("temporary failure in name resolution" in text)
        or "getaddrinfo" in text
    ):
        return "the host name does not resolve (a typo in the URL, or no DNS)"
    if "refused" in text:
        return "nothing listens there (a wrong host or port, or the service is down)"
    if "timeout" in text or "timed out" in text:
        return "the connection timed out (a firewall, a wrong region, or no network)"
    return f"{type(exc).__name__} (check the URL and the network)"


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
        self.transient = is_transient_status(status)
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


class ProviderUnavailableError(ConnecteamAPIError):
    """The provider answered nothing but 429 and 5xx, or nothing at all, for longer than the
    client's ``max_outage`` (:class:`.transient.Outage`): the whole run stops, no step retries
    it, and every stream is left as the last good run loaded it.

    Attributes:
        lasted: Seconds the outage had lasted when the client gave up.
    """

    def __init__(self, endpoint: str, status: int | None, lasted: float, method: str) -> None:
        self.lasted = lasted
        what = f"HTTP {status}" if status is not None else "no answer"
        super().__init__(
            endpoint,
            status,
            f"the provider has answered only 429, 5xx or nothing for {lasted:.0f} s (last: {what})",
            "it is down or unreachable; run the sync again later (the client gives up after "
            "SOURCES__CONNECTEAM__MAX_OUTAGE seconds)",
            method=method,
        )
        self.transient = False


def find_connecteam_error(exc: BaseException | None) -> ConnecteamError | None:
    """The :class:`ConnecteamError` behind ``exc`` (dlt wraps source errors in its own), if any."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, ConnecteamError):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


class RetryableError(Exception):
    """An answer worth retrying (429 or 5xx); internal to the client, never raised to callers."""

    def __init__(self, status: int, endpoint: str, reset: float | None) -> None:
        super().__init__(f"HTTP {status} from {endpoint}")
        self.status = status
        self.endpoint = endpoint
        self.reset = reset


def validation_detail(content: bytes, most: int = 20) -> str | None:
    """The fields of an ``HTTPValidationError`` body (the spec's 422 answer,
    ``{"detail": [{loc, msg, type}, ...]}``), one ``loc: msg`` each, ``loc`` joined by dots
    (``body.fileId: field required; path.userId: ...``); at most ``most`` fields, each message
    cut at 200 characters. ``None`` for any other body (also one nested too deep to decode)."""
    try:
        body = json.loads(content)
    except (ValueError, RecursionError):
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


def status_hint(status: int) -> str:
    if status == 401:
        return "the API key or OAuth credentials were refused; check SOURCES__CONNECTEAM__API_KEY"
    if status == 403:
        return "the credentials lack the scope this endpoint needs"
    if status == 404:
        return "check SOURCES__CONNECTEAM__BASE_URL"
    if status == 422:
        return "the provider refused the request's parameters or body, field by field as named"
    return ""


def describe(exc: BaseException | None) -> str:
    if isinstance(exc, RetryableError):
        return str(exc)
    return type(exc).__name__ if exc else "an error"
