"""The ``connecteam`` dlt source: every stream of the registry
(:data:`~sources.connecteam.registry.STREAMS`) of one Connecteam account.

The streams, their endpoints, keys and incremental rules are declared once in
:mod:`.registry`; their resources live by domain in :mod:`.resources`; the HTTP client
(:mod:`.client` with :mod:`.paging`, :mod:`.auth`, :mod:`.pacing`, :mod:`.errors`) follows the
provider's spec (``spec/connecteam-openapi.json``). With OAuth 2.0 the token asks only for
the scopes of the streams selected (:func:`selected_scopes`).

Configuration, the dlt way (:mod:`.config`; ``.dlt/config.toml``, ``.dlt/secrets.toml`` or
environment variables): ``SOURCES__CONNECTEAM__API_KEY`` or ``SOURCES__CONNECTEAM__CLIENT_ID`` +
``SOURCES__CONNECTEAM__CLIENT_SECRET``; ``SOURCES__CONNECTEAM__BASE_URL`` (default the global
host); ``SOURCES__CONNECTEAM__SHIFTS_DAYS_BACK`` / ``..._DAYS_AHEAD`` / ``..._BACKFILL_START``.
"""

from __future__ import annotations

from collections.abc import Iterable

import dlt
import httpx
from dlt.common.typing import TSecretStrValue
from dlt.sources import DltResource

from .client import ConnecteamClient
from .config import ConnecteamClientConfiguration, ConnecteamSourceConfiguration
from .errors import (
    ConnecteamAPIError,
    ConnecteamConfigError,
    ConnecteamError,
    OAuthScopeError,
    ParentNotFoundError,
    ProviderUnavailableError,
    RateLimitExhaustedError,
    find_connecteam_error,
)
from .pacing import ClientStats
from .registry import DEFAULT_BASE_URL, STREAMS, oauth_scopes
from .resources import build_resources
from .windows import to_epoch

__all__ = [
    "ClientStats",
    "ConnecteamAPIError",
    "ConnecteamClient",
    "ConnecteamConfigError",
    "ConnecteamError",
    "OAuthScopeError",
    "ParentNotFoundError",
    "ProviderUnavailableError",
    "RateLimitExhaustedError",
    "connecteam_source",
    "find_connecteam_error",
]

_DEFAULTS = ConnecteamSourceConfiguration()


@dlt.source(name="connecteam", max_table_nesting=0, spec=ConnecteamSourceConfiguration)
def connecteam_source(
    now: float,
    api_key: TSecretStrValue | None = None,
    base_url: str = DEFAULT_BASE_URL,
    client_id: str | None = None,
    client_secret: TSecretStrValue | None = None,
    shifts_days_back: int = _DEFAULTS.shifts_days_back,
    shifts_days_ahead: int = _DEFAULTS.shifts_days_ahead,
    shifts_backfill_start: str | None = None,
    activities_days_back: int = _DEFAULTS.activities_days_back,
    activities_backfill_start: str | None = None,
    time_off_days_back: int = _DEFAULTS.time_off_days_back,
    time_off_days_ahead: int = _DEFAULTS.time_off_days_ahead,
    form_submissions_days_back: int = _DEFAULTS.form_submissions_days_back,
    shifts_api_version: int = _DEFAULTS.shifts_api_version,
    timeout: float = _DEFAULTS.timeout,
    max_attempts: int = _DEFAULTS.max_attempts,
    backoff_base: float = _DEFAULTS.backoff_base,
    max_outage: float = _DEFAULTS.max_outage,
    max_in_flight: int = _DEFAULTS.max_in_flight,
    max_pages: int = _DEFAULTS.max_pages,
    max_page_growth: int = _DEFAULTS.max_page_growth,
    stats: ClientStats | None = None,
    allow_insecure: bool = False,
    transport: httpx.BaseTransport | None = None,
) -> list[DltResource]:
    """Every stream of the registry, one resource each, in registry order.

    ``now`` is the run's instant, epoch seconds (UTC: :attr:`core.project.Project.now`), every
    window, tombstone and pull stamp of the run is placed by. The other arguments are the fields
    of :class:`~.config.ConnecteamSourceConfiguration`, described there (credentials, host,
    retries, requests in flight, pages per listing; the windows of the windowed streams in days,
    backfill starts as epoch seconds or an ISO date, UTC), as the edge resolved them
    (:func:`sources.configuration.resolve`; dlt resolves any not given from
    ``sources.connecteam``), plus three never read from config: ``stats``, an optional
    :class:`ClientStats` the client fills (requests per endpoint, retries), and
    ``allow_insecure`` (the commands' ``--allow-insecure``): accept a plain ``http://``
    ``base_url`` to a host other than this machine (default: refused,
    :func:`~.config.require_secure_base_url`), and ``transport``, an httpx transport in place
    of the network (tests: an in-process ``httpx.MockTransport``).

    Returns:
        The resources named as the keys of :data:`~sources.connecteam.registry.STREAMS`.

    Raises:
        ConnecteamConfigError: No credentials, a bad ``base_url`` (not http(s), or plain
            ``http://`` to another machine without ``allow_insecure``), ``max_in_flight``
            below 1, a ``timeout`` or ``max_outage`` not above 0, or a ``shifts_api_version``
            other than 1 or 2.
        ValueError: A backfill start that is neither epoch seconds nor an ISO date.
    """
    config = ConnecteamClientConfiguration(
        api_key=api_key,
        client_id=client_id,
        client_secret=client_secret,
        base_url=base_url,
        timeout=timeout,
        max_attempts=max_attempts,
        backoff_base=backoff_base,
        max_outage=max_outage,
        max_in_flight=max_in_flight,
        max_pages=max_pages,
        max_page_growth=max_page_growth,
    )
    client = config.client(
        scopes=selected_scopes, allow_insecure=allow_insecure, transport=transport, now=now
    )
    if stats is not None:
        client.stats = stats
    activities_backfill = to_epoch(activities_backfill_start)
    return build_resources(
        client,
        (shifts_days_back, shifts_days_ahead, to_epoch(shifts_backfill_start)),
        (activities_days_back, activities_backfill),
        (time_off_days_back, time_off_days_ahead),
        form_submissions_days_back,
        shifts_api_version,
    )


def selected_scopes() -> dict[str, list[str]]:
    """The OAuth 2.0 scopes of the streams the running extract selected
    (``source.with_resources``), each with the streams needing it; every stream's outside an
    extract. Called by the client at its first token request, inside the extract."""
    try:
        streams: Iterable[str] = dlt.current.source().selected_resources
    except Exception:  # noqa: BLE001 - no source being extracted: ask for every stream's scope
        streams = STREAMS
    return oauth_scopes(streams)
