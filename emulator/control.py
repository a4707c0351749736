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
* ``GET config``: ``{config, options}``.

The document write path has control endpoints of its own (:mod:`emulator.documents`).
"""

from __future__ import annotations

import asyncio
from dataclasses import asdict
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from .change_events import publish_changes
from .responses import CONTROL_PREFIX, json_response
from .state import EmulatorState


def add_control_routes(app: FastAPI, state: EmulatorState) -> None:
    """Register the control endpoints on ``app`` (see the module docstring)."""

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
