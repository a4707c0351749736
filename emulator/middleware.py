"""The emulator's provider behaviour around every API request (ASGI middleware): rate limits,
their headers, latency, injected faults and request counters.

* Rate limits are fixed windows aligned to the epoch (a minute by default; the window length is
  configurable so tests need not wait a real minute); every answer carries the
  ``x-ratelimit-{minute,day}-{limit,remaining,reset}`` headers, and a request over either budget is
  answered 429 (and still counted, as the provider counts it).
* Fault mode: a seeded fraction of API requests (the token endpoint excepted) is answered 429, 500
  or 503, or has its connection dropped in the middle of the answer.
* :attr:`~emulator.state.ServerOptions.failing_paths`: chosen requests answered with a fixed
  status.
* Requests are counted per spec path template (``/forms/v1/forms/{formId}/form-submissions``),
  answers per status, and the most requests under way at once (``peak_in_flight``); control
  endpoints (``/_emulator/...``) pass untouched.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import Any
from urllib.parse import parse_qs

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .auth import TOKEN_PATH
from .responses import CONTROL_PREFIX
from .spec_schemas import path_template
from .state import EmulatorState


def _rate_headers(state: EmulatorState, now: float) -> tuple[dict[str, str], bool]:
    """Count one request against the budgets; return the headers and whether it is over."""
    opts = state.options
    minute_window = int(now // opts.window_seconds)
    day_window = int(now // 86_400)
    with state.lock:
        state.windows[("m", minute_window)] += 1
        state.windows[("d", day_window)] += 1
        used_minute = state.windows[("m", minute_window)]
        used_day = state.windows[("d", day_window)]
        for key in [k for k in state.windows if k[0] == "m" and k[1] < minute_window]:
            del state.windows[key]
    headers = {
        "x-ratelimit-minute-limit": str(opts.minute_limit),
        "x-ratelimit-minute-remaining": str(max(0, opts.minute_limit - used_minute)),
        "x-ratelimit-minute-reset": str(math.ceil((minute_window + 1) * opts.window_seconds)),
        "x-ratelimit-day-limit": str(opts.day_limit),
        "x-ratelimit-day-remaining": str(max(0, opts.day_limit - used_day)),
        "x-ratelimit-day-reset": str((day_window + 1) * 86_400),
    }
    return headers, used_minute > opts.minute_limit or used_day > opts.day_limit


class DroppedConnectionError(Exception):
    """Raised mid-answer to make the server close the connection (fault mode)."""


class _QuietDrops(logging.Filter):
    """Keep the server's log free of the tracebacks of deliberately dropped connections."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, DroppedConnectionError)


logging.getLogger("uvicorn.error").addFilter(_QuietDrops())


class ProviderBehaviour:
    """ASGI middleware: rate limits, headers, latency, faults and counters for API paths."""

    def __init__(self, app: ASGIApp, state: EmulatorState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path.startswith(CONTROL_PREFIX):
            await self.app(scope, receive, send)
            return
        state = self.state
        template = path_template(path.rstrip("/") or "/")
        headers, over = _rate_headers(state, time.time())
        with state.lock:
            state.requests[template] += 1
            state.in_flight += 1
            state.peak_in_flight = max(state.peak_in_flight, state.in_flight)
        try:
            await self._answer(scope, receive, send, headers, over)
        finally:
            with state.lock:
                state.in_flight -= 1

    async def _answer(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str], over: bool
    ) -> None:
        """Answer one counted API request: after the latency, a fault, a configured failure,
        a 429 when ``over`` the budget, else the app's answer with the rate-limit ``headers``."""
        state, path = self.state, scope.get("path", "")
        if state.options.latency:
            await asyncio.sleep(state.options.latency)
        fault = None
        if state.options.fault_rate and path != TOKEN_PATH:
            with state.lock:
                if state.fault_rng.random() < state.options.fault_rate:
                    fault = state.fault_rng.choice(["429", "500", "503", "drop"])
                    state.faults[fault] += 1
        failing = _failing_status(state.options.failing_paths, path, scope)
        if failing is not None and not over:
            with state.lock:
                state.statuses[failing] += 1
            await _send_json(send, failing, {"detail": "Failing by configuration"}, headers)
            return
        if over or fault in ("429", "500", "503"):
            status = 429 if over else int(fault or 500)
            detail = "Rate limit exceeded" if status == 429 else "Temporary failure"
            with state.lock:
                state.statuses[status] += 1
            await _send_json(send, status, {"detail": detail}, headers)
            return
        if fault == "drop":
            with state.lock:
                state.statuses[0] += 1
            # Declare a body longer than what is sent: the server closes the connection mid-answer.
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", b"4096"),
                    ],
                }
            )
            await send(
                {"type": "http.response.body", "body": b'{"requestId": "', "more_body": True}
            )
            raise DroppedConnectionError("fault mode: connection dropped mid-answer")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + [
                    (k.encode(), v.encode()) for k, v in headers.items()
                ]
                with state.lock:
                    state.statuses[message["status"]] += 1
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _failing_status(failing: dict[str, int], path: str, scope: Scope) -> int | None:
    """The status :attr:`ServerOptions.failing_paths` sets for this request, if any."""
    if not failing:
        return None
    query = parse_qs(scope.get("query_string", b"").decode())
    for key, status in failing.items():
        wanted_path, _, wanted_query = key.partition("?")
        if wanted_path != path:
            continue
        wanted = parse_qs(wanted_query)
        if all(set(values) <= set(query.get(name, [])) for name, values in wanted.items()):
            return int(status)
    return None


async def _send_json(send: Send, status: int, body: Any, headers: dict[str, str]) -> None:
    """Answer ``status`` with ``body`` as JSON and ``headers``, straight through ASGI ``send``."""
    payload = orjson.dumps(body)
    raw_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    raw_headers += [(k.encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": payload})
