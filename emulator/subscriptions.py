"""The provider's webhook settings API, emulated: ``/settings/v1/webhooks`` (POST, GET paged by
``featureType``, GET/PUT/DELETE by id), as the spec describes it (``WebhookCreateRequest``,
``WebhookUpdateRequest``, ``WebhookResponse``; scopes ``settings.read``, ``settings.write``,
``settings.delete``).

Emulator's choices where the spec is silent: a URL must be ``https://``, or ``http://`` on a
loopback host (the local receiver); ``eventTypes`` must be events of the feature type
(:func:`emulator.spec_webhooks.feature_families`, 422 otherwise); ``retryLimit`` is
:attr:`~emulator.state.ServerOptions.webhook_retries`; the secret key is stored and never
answered. Every write is counted in :attr:`WebhookStore.writes` so tests can tell a run that
changed nothing from one that did.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit

import orjson
from fastapi import FastAPI, Path, Query, Request
from fastapi.responses import Response

from .auth import requirement
from .config import now as clock_now
from .responses import envelope, invalid, json_response, paged
from .spec_webhooks import feature_event_types, feature_families
from .webhook_store import LOOPBACK_HOSTS, public

if TYPE_CHECKING:
    from .state import EmulatorState


def _check(body: dict[str, Any], creating: bool) -> tuple[dict[str, Any], Response | None]:
    """The writable fields of a create (``creating``) or update request, or a 422 answer."""
    allowed = ("name", "url", "secretKey", "isDisabled", "featureType", "entityId", "objectId",
               "eventTypes", "webhookVersion")  # fmt: skip
    fields = {k: body[k] for k in allowed if k in body and (creating or body[k] is not None)}
    if creating:
        for name in ("name", "url", "featureType", "eventTypes"):
            if name not in body or body[name] is None:
                return fields, invalid(["body", name], "Field required")
    text = {"name": str, "url": str, "featureType": str, "secretKey": str, "entityId": str}
    for name, kind in text.items():
        if name in fields and fields[name] is not None and not isinstance(fields[name], kind):
            return fields, invalid(["body", name], "Input should be a valid string")
    for name in ("isDisabled",):
        if name in fields and not isinstance(fields[name], bool):
            return fields, invalid(["body", name], "Input should be a valid boolean")
    for name in ("webhookVersion", "objectId"):
        value = fields.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            return fields, invalid(["body", name], "Input should be a valid integer")
    if "url" in fields:
        parts = urlsplit(fields["url"])
        loopback = parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
        if not parts.netloc or not (parts.scheme == "https" or loopback):
            return fields, invalid(["body", "url"], "Must be a valid https endpoint")
    if "featureType" in fields and fields["featureType"] not in feature_families():
        return fields, invalid(
            ["body", "featureType"],
            f"Unknown feature type; choose from {list(feature_families())}",
        )
    if "eventTypes" in fields:
        events = fields["eventTypes"]
        if (
            not isinstance(events, list)
            or not events
            or not all(isinstance(e, str) for e in events)
        ):
            return fields, invalid(["body", "eventTypes"], "At least one event type is required")
    if "objectId" in fields and fields.get("entityId") is None and fields["objectId"] is not None:
        fields["entityId"] = str(fields["objectId"])  # entityId wins when both are given
    return fields, None


def _event_types_fit(record: dict[str, Any]) -> Response | None:
    """422 unless every event type of ``record`` belongs to its feature type."""
    known = set(feature_event_types(record["featureType"]))
    unknown = [e for e in record["eventTypes"] if e not in known]
    if unknown:
        return invalid(
            ["body", "eventTypes"], f"Not events of {record['featureType']}: {unknown[:5]}"
        )
    return None


def add_subscription_routes(app: FastAPI, state: EmulatorState) -> None:
    """Register ``/settings/v1/webhooks`` on ``app`` (see the module docstring)."""
    path, one = "/settings/v1/webhooks", "/settings/v1/webhooks/{webhookId}"

    @app.post(path, dependencies=[requirement(state, "settings.write")])
    async def create_webhook(request: Request) -> Response:
        body = await _read_body(request)
        return body if isinstance(body, Response) else create(state, body)

    @app.get(path, dependencies=[requirement(state, "settings.read")])
    async def list_webhooks(
        featureType: str | None = None,  # noqa: N803
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        rows = listed(state, featureType)
        return paged("webhooks", rows, offset, limit, state.options.paging_total)

    @app.get(one, dependencies=[requirement(state, "settings.read")])
    async def get_webhook(webhookId: Annotated[int, Path()]) -> Response:  # noqa: N803
        record = _find(state, webhookId)
        return record if isinstance(record, Response) else envelope(public(record))

    @app.put(one, dependencies=[requirement(state, "settings.write")])
    async def update_webhook(webhookId: Annotated[int, Path()], request: Request) -> Response:  # noqa: N803
        if isinstance(record := _find(state, webhookId), Response):
            return record
        body = await _read_body(request)
        return body if isinstance(body, Response) else update(state, webhookId, record, body)

    @app.delete(one, dependencies=[requirement(state, "settings.delete")])
    async def delete_webhook(webhookId: Annotated[int, Path()]) -> Response:  # noqa: N803
        return delete(state, webhookId)


async def _read_body(request: Request) -> dict[str, Any] | Response:
    """The request's JSON object, or the 422 for a body that is not one."""
    try:
        body = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        return invalid(["body"], "JSON decode error")
    if not isinstance(body, dict):
        return invalid(["body"], "Input should be a valid dictionary")
    return body


def _find(state: EmulatorState, webhook_id: int) -> dict[str, Any] | Response:
    """The stored webhook ``webhook_id``, or a 404."""
    with state.webhook_store.lock:
        record = state.webhook_store.webhooks.get(webhook_id)
    if record is None:
        return json_response({"detail": f"Webhook {webhook_id} not found"}, 404)
    return record


def create(state: EmulatorState, body: dict[str, Any]) -> Response:
    """``POST``: store a webhook from ``body`` (``WebhookCreateRequest``), created now
    (:func:`emulator.config.now`, epoch seconds); the stored webhook without its secret, or a
    422 naming the field at fault."""
    fields, problem = _check(body, creating=True)
    if problem is not None:
        return problem
    fields.setdefault("isDisabled", False)
    fields.setdefault("entityId", None)
    fields.setdefault("webhookVersion", 1)
    problem = _event_types_fit(fields)
    if problem is not None:
        return problem
    now = int(clock_now())
    return envelope(public(state.webhook_store.create(fields, now, state.options.webhook_retries)))


def listed(state: EmulatorState, feature_type: str | None) -> list[dict[str, Any]]:
    """The stored webhooks (of ``feature_type`` when given) in id order, without secrets."""
    store = state.webhook_store
    with store.lock:
        return [
            public(w)
            for _, w in sorted(store.webhooks.items())
            if feature_type is None or w["featureType"] == feature_type
        ]


def update(
    state: EmulatorState, webhook_id: int, record: dict[str, Any], body: dict[str, Any]
) -> Response:
    """``PUT``: the stored ``record`` of ``webhook_id`` with ``body``'s fields
    (``WebhookUpdateRequest``; nulls leave a field as it is); the result without its secret,
    or a 422 naming the field at fault (nothing stored)."""
    fields, problem = _check(body, creating=False)
    if problem is not None:
        return problem
    updated = {**record, **fields}
    problem = _event_types_fit(updated)
    if problem is not None:
        return problem
    store = state.webhook_store
    with store.lock:
        store.webhooks[webhook_id] = updated
        store.writes.append(("PUT", webhook_id))
    return envelope(public(updated))


def delete(state: EmulatorState, webhook_id: int) -> Response:
    """``DELETE``: forget webhook ``webhook_id``; ``{}``, or a 404."""
    store = state.webhook_store
    with store.lock:
        gone = store.webhooks.pop(webhook_id, None)
        if gone is not None:
            store.writes.append(("DELETE", webhook_id))
    if gone is None:
        return json_response({"detail": f"Webhook {webhook_id} not found"}, 404)
    return envelope({})
