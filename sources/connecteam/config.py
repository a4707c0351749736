"""The ``connecteam`` configuration, read one way: dlt's typed configuration (``@configspec``).

:class:`ConnecteamClientConfiguration` (credentials, host, retries) is resolved from section
``sources.connecteam`` of ``.dlt/config.toml``, ``.dlt/secrets.toml`` or the environment
(``SOURCES__CONNECTEAM__API_KEY``, ``..._CLIENT_ID``, ``..._CLIENT_SECRET``, ``..._BASE_URL``,
``..._TIMEOUT``, ``..._MAX_ATTEMPTS``, ``..._BACKOFF_BASE``, ``..._MAX_IN_FLIGHT``). The source's
own specification, :class:`ConnecteamSourceConfiguration`, extends it with the windows of the
windowed streams, so the sync and the document-entry client (:func:`client_from_config`) read
the same settings.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

import httpx
from dlt.common.configuration import configspec
from dlt.common.configuration.specs import BaseConfiguration
from dlt.common.typing import TSecretStrValue

from .auth import Scopes
from .client import ConnecteamClient, require_credentials
from .errors import ConnecteamConfigError
from .registry import DEFAULT_BASE_URL, FORM_SUBMISSIONS_DAYS_BACK, OAUTH_SCOPES, STREAMS, Window

SECTIONS = ("sources", "connecteam")
"""The configuration section: ``[sources.connecteam]``, ``SOURCES__CONNECTEAM__*``."""


def _window(stream: str) -> Window:
    window = STREAMS[stream].window
    assert window is not None
    return window


@configspec
class ConnecteamClientConfiguration(BaseConfiguration):
    """How to reach one Connecteam account.

    Attributes:
        api_key: The account's API key (secret); or ``client_id`` and ``client_secret``.
        client_id: OAuth 2.0 client id (client-credentials grant).
        client_secret: OAuth 2.0 client secret (secret).
        base_url: API host: ``https://api.connecteam.com`` (default) or
            ``https://api-au.connecteam.com``.
        timeout: Seconds one request may wait to connect (at most 10), to send, and between two
            reads of its answer (default 30); past it the request is retried like a 5xx. Raise it
            for a provider that takes long to start a large window's answer.
        max_attempts: Attempts per request on 429, 5xx, timeouts and dropped connections.
        backoff_base: First back-off step in seconds (doubling, jittered).
        max_outage: Seconds the provider may answer nothing but 429 and 5xx (or nothing at
            all) before the run stops retrying and fails (default 600; above 0): with the
            defaults a dead provider holds a nightly at most 720 s (:mod:`.transient`).
        max_in_flight: Requests in flight at once at most (>= 1; default 4; 1: one at a time),
            when the provider answers slower than the rate-limit budget's pace; every request
            still within the budget.
        max_pages: Pages one listing may take at most (default 2000): past it the stream
            fails as a listing that does not end.
        max_page_growth: A listing's further bound, as a multiple (default 10; 0: none) of the
            pages its first ``paging.total`` or its stream's largest listing last run says, at
            least 100 pages.
    """

    api_key: TSecretStrValue | None = None
    client_id: str | None = None
    client_secret: TSecretStrValue | None = None
    base_url: str = DEFAULT_BASE_URL
    timeout: float = 30.0
    max_attempts: int = 8
    backoff_base: float = 1.0
    max_outage: float = 600.0
    max_in_flight: int = 4
    max_pages: int = 2000
    max_page_growth: int = 10

    def client(
        self,
        scopes: Scopes = OAUTH_SCOPES,
        *,
        allow_insecure: bool = False,
        transport: httpx.BaseTransport | None = None,
        now: float | None = None,
    ) -> ConnecteamClient:
        """A client of the configured account asking OAuth 2.0 for ``scopes``.

        ``allow_insecure`` (the commands' ``--allow-insecure``) lets a plain ``http://``
        ``base_url`` name another host than this machine (:func:`require_secure_base_url`);
        ``transport`` replaces the network (tests: an in-process ``httpx.MockTransport``);
        ``now`` is the run's instant (:class:`~.client.ConnecteamClient`).

        Raises:
            ConnecteamConfigError: No credentials, a ``base_url`` that is not http(s), a
                plain ``http://`` one to another host without ``allow_insecure``, a
                ``max_in_flight`` below 1, or a ``timeout`` or ``max_outage`` not above 0.
        """
        self.require_secure(allow_insecure)
        if not self.timeout > 0:
            raise ConnecteamConfigError(
                f"SOURCES__CONNECTEAM__TIMEOUT must be seconds above 0 (default 30), "
                f"got {self.timeout}"
            )
        if not self.max_outage > 0:
            raise ConnecteamConfigError(
                f"SOURCES__CONNECTEAM__MAX_OUTAGE must be seconds above 0 (default 600), "
                f"got {self.max_outage}"
            )
        if self.max_in_flight < 1:
            raise ConnecteamConfigError(
                f"SOURCES__CONNECTEAM__MAX_IN_FLIGHT must be at least 1 (1: one request at a "
                f"time), got {self.max_in_flight}"
            )
        return ConnecteamClient(
            self.api_url(),
            api_key=self.api_key,
            client_id=self.client_id,
            client_secret=self.client_secret,
            timeout=self.timeout,
            max_attempts=self.max_attempts,
            backoff_base=self.backoff_base,
            max_outage=self.max_outage,
            max_in_flight=self.max_in_flight,
            max_pages=self.max_pages,
            max_page_growth=self.max_page_growth,
            scopes=scopes,
            transport=transport,
            now=now,
        )

    def api_url(self) -> str:
        """The configured ``base_url``, else :data:`DEFAULT_BASE_URL`."""
        return str(self.base_url or DEFAULT_BASE_URL)

    def require_secure(self, allow_insecure: bool = False) -> None:
        """:func:`require_secure_base_url` on :meth:`api_url`: a check before any request.

        Raises:
            ConnecteamConfigError: A plain ``http://`` URL to another host without
                ``allow_insecure``.
        """
        require_secure_base_url(self.api_url(), allow_insecure)

    def require_credentials(self) -> None:
        """:func:`~sources.connecteam.client.require_credentials` on the configured ones: a
        check before any work.

        Raises:
            ConnecteamConfigError: No API key, and no OAuth 2.0 client id and secret.
        """
        require_credentials(self.api_key, self.client_id, self.client_secret)


@configspec
class ConnecteamSourceConfiguration(ConnecteamClientConfiguration):
    """The ``connecteam`` source's arguments: the client's, plus the windows the windowed
    streams re-pull (days; backfill starts as epoch seconds or an ISO date, UTC). Defaults are
    the registry's (:data:`~sources.connecteam.registry.STREAMS`).

    Attributes:
        shifts_days_back: Days before now that every run re-pulls shifts for (default 30).
        shifts_days_ahead: Days after now that every run re-pulls shifts for (default 90).
        shifts_backfill_start: Where the first run of a scheduler starts instead: epoch seconds or
            an ISO date such as ``2024-01-01`` (UTC). Default: the window's start.
        activities_days_back: Days before today that every run re-pulls time activities and
            timesheets for (default 35).
        activities_backfill_start: Where the first run of a time clock starts instead (as
            ``shifts_backfill_start``).
        time_off_days_back: Days before today of the time-off window (default 35).
        time_off_days_ahead: Days after today of the time-off window (default 180).
        form_submissions_days_back: Days before the newest loaded submission that every run
            re-reads per form, to pick up edited submissions (default 7).
        shifts_api_version: ``1`` (default: ``GET /scheduler/v1/...``, a row per assigned
            user) or ``2`` (``GET /scheduler/v2/...``, a row per shift with every assigned
            user: for accounts whose shift webhooks are V2).
    """

    shifts_days_back: int = _window("shifts").days_back
    shifts_days_ahead: int = _window("shifts").days_ahead
    shifts_backfill_start: str | None = None
    activities_days_back: int = _window("time_activities").days_back
    activities_backfill_start: str | None = None
    time_off_days_back: int = _window("time_off_requests").days_back
    time_off_days_ahead: int = _window("time_off_requests").days_ahead
    form_submissions_days_back: int = FORM_SUBMISSIONS_DAYS_BACK
    shifts_api_version: int = 1


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (a URL's host, without brackets or port) names this machine:
    ``localhost`` or a loopback address (``127.0.0.0/8``, ``::1``, IPv4-mapped ``127.*``)."""
    name = host.lower().rstrip(".")
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def require_secure_base_url(base_url: str, allow_insecure: bool = False) -> None:
    """Refuse a plain ``http://`` ``base_url`` whose host is not this machine: the API key (or
    the OAuth client secret and token) would cross the network unencrypted. Loopback hosts (the
    emulator, a local proxy) and ``https://`` pass; ``allow_insecure`` lets any host pass.
    Makes no request.

    Raises:
        ConnecteamConfigError: A plain ``http://`` URL to another host without
            ``allow_insecure``; the message names ``SOURCES__CONNECTEAM__BASE_URL`` (scheme,
            host and port only) and ``--allow-insecure``.
    """
    parts = urlsplit(base_url.strip())
    if parts.scheme.lower() != "http" or allow_insecure:
        return
    host = parts.hostname or ""
    if is_loopback_host(host):
        return
    shown = f"http://{parts.netloc.rpartition('@')[2]}"  # never a user:password part
    raise ConnecteamConfigError(
        f"SOURCES__CONNECTEAM__BASE_URL={shown} is plain http:// to another machine: the "
        "credentials would cross the network unencrypted; use https://, or pass "
        "--allow-insecure if this network is trusted"
    )


def client_from_config(
    arguments: dict[str, Any],
    scopes: Scopes = OAUTH_SCOPES,
    *,
    now: float | None = None,
    allow_insecure: bool = False,
) -> ConnecteamClient:
    """A client configured like the sync, asking OAuth 2.0 for ``scopes``.

    Args:
        arguments: The source's configuration, secrets in clear
            (:meth:`core.project.SourceConfig.arguments`); fields of the windows are ignored.
        scopes: The OAuth 2.0 scopes to ask for.
        now: The run's instant (:attr:`core.project.Project.now`).
        allow_insecure: As in :meth:`ConnecteamClientConfiguration.client`.

    Raises:
        ConnecteamConfigError: No credentials, a ``base_url`` that is not http(s), or a plain
            ``http://`` one to another host without ``allow_insecure``.
    """
    return client_config(arguments).client(scopes, allow_insecure=allow_insecure, now=now)


def client_config(arguments: dict[str, Any]) -> ConnecteamClientConfiguration:
    """The client part of the source's configuration ``arguments``
    (:meth:`core.project.SourceConfig.arguments`), for checks before any work
    (:meth:`ConnecteamClientConfiguration.require_secure`, ``require_credentials``)."""
    fields = ConnecteamClientConfiguration.get_resolvable_fields()
    return ConnecteamClientConfiguration(
        **{name: value for name, value in arguments.items() if name in fields}
    )
