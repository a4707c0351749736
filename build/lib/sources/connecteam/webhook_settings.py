"""The provider's webhook settings API (``/settings/v1/webhooks``): list, create, update and
delete the account's webhook subscriptions, and the entities they are scoped to.

OAuth 2.0 scopes: ``settings.read`` (GET), ``settings.write`` (POST, PUT), ``settings.delete``
(DELETE), plus ``time_clock.read`` and ``schedule.read`` to list the time clocks and
schedulers a subscription may be scoped to (:data:`SUBSCRIPTION_SCOPES`).

Writes are sent once (no blind retry: a POST repeated after a lost answer would create a second
webhook); the caller finds out what happened by listing again (:mod:`pipelines.subscriptions`).
"""

from __future__ import annotations

from typing import Any

from .client import ConnecteamClient
from .errors import ConnecteamAPIError
from .registry import STREAMS

WEBHOOKS_PATH = "/settings/v1/webhooks"
WEBHOOK_PATH = "/settings/v1/webhooks/{webhookId}"
PAGE_LIMIT = 100
"""The list endpoint's largest page (the spec's ``limit`` maximum)."""
SUBSCRIPTION_SCOPES = "settings.read settings.write settings.delete time_clock.read schedule.read"
"""The OAuth 2.0 scopes subscribing asks for (space-separated)."""


def list_webhooks(
    client: ConnecteamClient, feature_type: str | None = None
) -> list[dict[str, Any]]:
    """Every webhook of the account (``GET /settings/v1/webhooks``, pages of 100 by
    limit/offset, stopping at a short page), optionally of one ``featureType``.

    Returns:
        The ``WebhookResponse`` records as the provider sent them.

    Raises:
        ConnecteamAPIError: The provider refused (e.g. 401 wrong key, 403 missing
            ``settings.read``) or answered without ``data.webhooks``.
    """
    out: list[dict[str, Any]] = []
    offset = 0
    while True:
        params: dict[str, Any] = {"limit": PAGE_LIMIT, "offset": offset}
        if feature_type:
            params["featureType"] = feature_type
        body = client.get(WEBHOOKS_PATH, params)
        data = body.get("data")
        page = data.get("webhooks") if isinstance(data, dict) else None
        if not isinstance(page, list):
            raise ConnecteamAPIError(
                WEBHOOKS_PATH, 200, "the answer has no list at data.webhooks",
                "is SOURCES__CONNECTEAM__BASE_URL a Connecteam API host?",
            )  # fmt: skip
        out.extend(w for w in page if isinstance(w, dict))
        if len(page) < PAGE_LIMIT:
            return out
        offset += PAGE_LIMIT


def create_webhook(client: ConnecteamClient, request: dict[str, Any]) -> dict[str, Any]:
    """Create one webhook (``POST /settings/v1/webhooks``, a ``WebhookCreateRequest``); sent
    once.

    Returns:
        The created webhook (``data`` of the answer).

    Raises:
        ConnecteamAPIError: Refused (422 invalid request, 403 missing ``settings.write``) or no
            answer (the webhook may or may not exist: list again).
    """
    with client.sent_once():
        return dict(client.request("POST", WEBHOOKS_PATH, json=request).get("data") or {})


def update_webhook(
    client: ConnecteamClient, webhook_id: int, request: dict[str, Any]
) -> dict[str, Any]:
    """Update one webhook (``PUT /settings/v1/webhooks/{webhookId}``, a
    ``WebhookUpdateRequest``; idempotent, so retried as any request).

    Raises:
        ConnecteamAPIError: Refused (404 no such webhook, 422, 403 missing ``settings.write``).
    """
    path = WEBHOOK_PATH.format(webhookId=webhook_id)
    return dict(client.request("PUT", path, json=request, endpoint=WEBHOOK_PATH).get("data") or {})


def delete_webhook(client: ConnecteamClient, webhook_id: int) -> None:
    """Delete one webhook (``DELETE /settings/v1/webhooks/{webhookId}``); sent once.

    Raises:
        ConnecteamAPIError: Refused (404 no such webhook, 403 missing ``settings.delete``) or
            no answer.
    """
    with client.sent_once():
        client.request("DELETE", WEBHOOK_PATH.format(webhookId=webhook_id), endpoint=WEBHOOK_PATH)


def entity_ids(client: ConnecteamClient) -> dict[str, list[str]]:
    """The entities webhooks are scoped to: ``{"time_activity": [time clock ids],
    "shift_scheduler": [scheduler ids]}`` as strings, from ``GET /time-clock/v1/time-clocks``
    and ``GET /scheduler/v1/schedulers`` (archived and deleted ones left out).

    Raises:
        ConnecteamAPIError: As :meth:`ConnecteamClient.paginate`.
    """
    clocks = [
        str(c["id"])
        for page in client.paginate(STREAMS["time_clocks"])
        for c in page
        if isinstance(c, dict) and c.get("id") is not None and not c.get("isArchived")
    ]
    schedulers = [
        str(s["schedulerId"])
        for page in client.paginate(STREAMS["schedulers"])
        for s in page
        if isinstance(s, dict) and s.get("schedulerId") is not None and not s.get("isArchived")
    ]
    return {"time_activity": clocks, "shift_scheduler": schedulers}
