"""The emulator's control endpoints under ``/_emulator/`` (not part of the provider's API: no
authentication, no rate limit, not counted), for tests, demos and benchmarks:

* ``GET stats``: ``{requests: {path template: n}, total, statuses: {"<status>": n},
  document_entries, faults: {kind: n}, peak_in_flight}`` since the last ``stats/reset``
  (``peak_in_flight``: the most API requests under way at once);
* ``POST stats/reset``: forget the request counters (not the rate-limit windows);
* ``POST mutate``: change the account; the body's keys are
  :meth:`~emulator.data.Dataset.mutate`'s arguments, the answer the ids it touched and
  ``webhook_deliveries``, the deliveries queued for the subscribed webhooks
  (:mod:`emulator.change_events`; 422 for a bad argument);
* ``GET webhooks?wait=<s>``: ``{deliveries: {queued, delivered, retried, failed,
  skipped_remote}, pending, writes: [[method, webhook id], ...], subscriptions}``, after waiting
  up to ``wait`` seconds for pending deliveries to finish;
* ``POST reset``: generate the account again; the body may override
  :class:`~emulator.data.EmulatorConfig` and :class:`~emulator.state.ServerOptions` fields (422
  for an unknown one); answers ``{config, options}``;
* ``GET config``: ``{config, options}``;
* ``POST extra-fields``: from now on, set fields in every record of the named lists of the API's
  answers, as a provider that starts sending a new field (or a new enum value) would; the body
  is ``{data key: {field: value}}`` (``{"users": {"favouriteColour": "teal"}}``: every item of
  ``data.users`` of every answer gets ``favouriteColour``; a field the record has is replaced);
  a key given ``{}`` stops; answers ``{extra_fields}`` (all keys now set; 422 for a body that
  is not objects of objects). ``GET extra-fields`` answers the same; ``POST reset``
  forgets them. Added in the answer's body only (:class:`ExtraFields`, an ASGI middleware),
  never to the account itself.

The document write path has control endpoints of its own (:mod:`emulator.domains.documents.routes`).
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .change_events import publish_changes
from .responses import CONTROL_PREFIX, json_bytes, json_response
from .state import EmulatorState


def add_control_routes(app: FastAPI, state: EmulatorState) -> None:
    """Register the control endpoints on ``app`` (see the module docstring), and the
    :class:`ExtraFields` middleware that answers ``extra-fields``."""
    extra: dict[str, dict[str, Any]] = {}
    app.add_middleware(ExtraFields, extra=extra)

    @app.post(CONTROL_PREFIX + "/extra-fields")
    async def set_extra_fields(request: Request) -> Response:
        return extra_fields_answer(extra, orjson.loads(await request.body() or b"{}"))

    @app.get(CONTROL_PREFIX + "/extra-fields")
    async def get_extra_fields() -> Response:
        return json_response({"extra_fields": extra})

    @app.get(CONTROL_PREFIX + "/stats")
    async def stats() -> Response:
        return json_response(stats_answer(state))

    @app.post(CONTROL_PREFIX + "/stats/reset")
    async def stats_reset() -> Response:
        state.reset_counters()
        return json_response({"ok": True})

    @app.post(CONTROL_PREFIX + "/mutate")
    async def mutate(request: Request) -> Response:
        return mutate_answer(state, orjson.loads(await request.body() or b"{}"))

    @app.get(CONTROL_PREFIX + "/webhooks")
    async def webhooks(wait: float = 0.0) -> Response:
        if wait > 0:
            await asyncio.to_thread(state.deliverer.wait, wait)
        return json_response(webhooks_answer(state))

    @app.post(CONTROL_PREFIX + "/reset")
    async def reset(request: Request) -> Response:
        """Regenerate the account; the body may override config and option fields."""
        extra.clear()
        return reset_answer(state, orjson.loads(await request.body() or b"{}"))

    @app.get(CONTROL_PREFIX + "/config")
    async def get_config() -> JSONResponse:
        return JSONResponse(settings_answer(state))


def stats_answer(state: EmulatorState) -> dict[str, Any]:
    """``GET stats``: the request counters since the last reset (see the module docstring)."""
    with state.lock:
        return {
            "requests": dict(state.requests),
            "total": sum(state.requests.values()),
            "statuses": {str(k): v for k, v in state.statuses.items()},
            "document_entries": len(state.entries),
            "faults": dict(state.faults),
            "peak_in_flight": state.peak_in_flight,
        }


def mutate_answer(state: EmulatorState, body: Any) -> Response:
    """``POST mutate``: change the account by ``body`` (:meth:`~emulator.data.Dataset.mutate`'s
    arguments) and queue the changes' webhook deliveries; the ids touched and
    ``webhook_deliveries``, or 422 naming a bad argument."""
    try:
        with state.lock:
            touched = state.dataset.mutate(**body)
            touched["webhook_deliveries"] = publish_changes(  # type: ignore[assignment]
                state.dataset, state.deliverer, touched
            )
    except (TypeError, ValueError) as exc:
        return json_response({"detail": f"mutate: {exc}"}, 422)
    return json_response(touched)


def webhooks_answer(state: EmulatorState) -> dict[str, Any]:
    """``GET webhooks``: the deliveries' counters, the pending ones, the subscription writes
    and the number of subscriptions."""
    with state.webhook_store.lock:
        writes = [list(w) for w in state.webhook_store.writes]
        subscribed = len(state.webhook_store.webhooks)
    return {
        "deliveries": dict(state.deliverer.stats),
        "pending": state.deliverer.pending(),
        "writes": writes,
        "subscriptions": subscribed,
    }


def reset_answer(state: EmulatorState, body: dict[str, Any]) -> Response:
    """``POST reset``: set ``body``'s config and option fields, generate the account again and
    forget the counters; ``{config, options}``, or 422 for an unknown field (then nothing is
    regenerated; fields set before it stay set)."""
    config_fields = set(asdict(state.config))
    with state.lock:
        for key, value in body.items():
            target = state.config if key in config_fields else state.options
            if not hasattr(target, key):
                return json_response({"detail": f"unknown setting {key}"}, 422)
            setattr(target, key, value)
        state.regenerate()
    state.reset_counters()
    return json_response(settings_answer(state))


def settings_answer(state: EmulatorState) -> dict[str, Any]:
    """``GET config``: ``{config, options}`` as dictionaries."""
    return {"config": asdict(state.config), "options": asdict(state.options)}


def extra_fields_answer(extra: dict[str, dict[str, Any]], body: Any) -> Response:
    """``POST extra-fields``: set ``extra`` (data key -> fields added to each of its records)
    from ``body``, a key given ``{}`` removed; ``{extra_fields}``, or 422 when ``body`` is not
    an object of objects (then nothing changes)."""
    if not isinstance(body, dict) or not all(isinstance(v, dict) for v in body.values()):
        return json_response({"detail": "extra-fields: give {data key: {field: value}}"}, 422)
    for key, fields in body.items():
        if fields:
            extra[str(key)] = dict(fields)
        else:
            extra.pop(str(key), None)
    return json_response({"extra_fields": extra})


def with_extra_fields(body: bytes, extra: dict[str, dict[str, Any]]) -> bytes | None:
    """``body`` (an API answer) with ``extra``'s fields set in each object of the lists
    ``data.<key>`` it holds (added, or replacing the record's own); ``None`` when nothing was
    set (not JSON, no such list)."""
    try:
        answer = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, dict):
        return None
    changed = False
    for key, fields in extra.items():
        items = data.get(key)
        if isinstance(items, list):
            data[key] = [{**i, **fields} if isinstance(i, dict) else i for i in items]
            changed = True
    return json_bytes(answer) if changed else None


class ExtraFields:
    """ASGI middleware: the API's answers (control paths excepted) with the fields of
    ``POST extra-fields`` added (:func:`with_extra_fields`); answers pass untouched while none
    are set."""

    def __init__(self, app: ASGIApp, extra: dict[str, dict[str, Any]]) -> None:
        self.app = app
        self.extra = extra

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else CONTROL_PREFIX
        if not self.extra or path.startswith(CONTROL_PREFIX):
            await self.app(scope, receive, send)
            return
        start: Message | None = None
        chunks: list[bytes] = []

        async def buffered(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            body = b"".join(chunks)
            added = with_extra_fields(body, self.extra) if start["status"] == 200 else None
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            body = body if added is None else added
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body, "more_body": False})

        await self.app(scope, receive, buffered)
