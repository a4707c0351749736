"""The ``connecteam`` configuration, read one way: dlt's typed configuration (``@configspec``).

:class:`ConnecteamClientConfiguration` (credentials, host, retries) is resolved from section
``sources.connecteam`` of ``.dlt/config.toml``, ``.dlt/secrets.toml`` or the environment
(``SOURCES__CONNECTEAM__API_KEY``, ``..._CLIENT_ID``, ``..._CLIENT_SECRET``, ``..._BASE_URL``,
``..._MAX_ATTEMPTS``, ``..._BACKOFF_BASE``). The source's own specification,
:class:`ConnecteamSourceConfiguration`, extends it with the windows of the windowed streams, so
the sync and the document-entry client (:func:`client_from_config`) read the same settings.
"""

from __future__ import annotations

from dlt.common.configuration import configspec, resolve_configuration
from dlt.common.configuration.specs import BaseConfiguration
from dlt.common.typing import TSecretStrValue

from .auth import Scopes
from .client import ConnecteamClient
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
        max_attempts: Attempts per request on 429, 5xx, timeouts and dropped connections.
        backoff_base: First back-off step in seconds (doubling, jittered).
    """

    api_key: TSecretStrValue | None = None
    client_id: str | None = None
    client_secret: TSecretStrValue | None = None
    base_url: str = DEFAULT_BASE_URL
    max_attempts: int = 8
    backoff_base: float = 1.0

    def client(self, scopes: Scopes = OAUTH_SCOPES) -> ConnecteamClient:
        """A client of the configured account asking OAuth 2.0 for ``scopes``.

        Raises:
            ConnecteamConfigError: No credentials, or a ``base_url`` that is not http(s).
        """
        return ConnecteamClient(
            str(self.base_url or DEFAULT_BASE_URL),
            api_key=self.api_key,
            client_id=self.client_id,
            client_secret=self.client_secret,
            max_attempts=self.max_attempts,
            backoff_base=self.backoff_base,
            scopes=scopes,
        )


@configspec
class ConnecteamSourceConfiguration(ConnecteamClientConfiguration):
    """The ``connecteam`` source's arguments: the client's, plus the windows the windowed
    streams re-pull (days; backfill starts as epoch seconds or an ISO date, UTC). Defaults are
    the registry's (:data:`~sources.connecteam.registry.STREAMS`)."""

    shifts_days_back: int = _window("shifts").days_back
    shifts_days_ahead: int = _window("shifts").days_ahead
    shifts_backfill_start: str | None = None
    activities_days_back: int = _window("time_activities").days_back
    activities_backfill_start: str | None = None
    time_off_days_back: int = _window("time_off_requests").days_back
    time_off_days_ahead: int = _window("time_off_requests").days_ahead
    form_submissions_days_back: int = FORM_SUBMISSIONS_DAYS_BACK


def read_config() -> ConnecteamClientConfiguration:
    """The client configuration resolved from ``sources.connecteam`` (unset values keep their
    defaults; missing credentials are reported when a client is built)."""
    return resolve_configuration(
        ConnecteamClientConfiguration(), sections=SECTIONS, accept_partial=True
    )


def client_from_config(scopes: Scopes = OAUTH_SCOPES) -> ConnecteamClient:
    """A client configured like the sync (``SOURCES__CONNECTEAM__*``), asking OAuth 2.0 for
    ``scopes``.

    Raises:
        ConnecteamConfigError: No credentials, or a ``base_url`` that is not http(s).
    """
    return read_config().client(scopes)
