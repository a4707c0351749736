"""The emulator's HTTP application: a local stand-in for the Connecteam API.

Serves, as the provider's OpenAPI spec (``shared/reference/connecteam-openapi.json``) describes:

* ``GET /users/v1/users`` (limit 1..500, offset, ``userStatus`` active|archived|all, default active;
  ``modifiedAt`` = modified strictly after that epoch second; ``userIds``),
* ``GET /forms/v1/forms`` (limit 1..300),
* ``GET /scheduler/v1/schedulers`` (not paged),
* ``GET /scheduler/v1/schedulers/{schedulerId}/shifts`` (required ``startTime``/``endTime``; a
  shift is listed when it overlaps ``[startTime, endTime)``; ``sort`` created_at|updated_at;
  ``order`` asc|desc; limit 1..500; one row per assigned user as V1 does),
* ``POST /oauth/v1/token`` (client credentials, HTTP Basic; Bearer tokens carry scopes; without a
  ``scope`` parameter the client's configured scopes are granted),
* ``GET /documents/v1/user-documents`` (beta, absent from the spec file, which defines no
  ``documents.*`` read scope: any valid API key or Bearer token is served). The interface leaves
  its shape "not shown"; the emulator's choice, modelled
  on the provider's other lists: ``limit`` 1..100 (default 10), ``offset``, ``userIds``; envelope
  ``{requestId, data: {userDocuments: [...]}, paging: {offset}}``; each record
  ``{id, userId, documentId, documentName, documentType (ApiDocumentType), packId,
  status (ApiDocumentStatus), createdAt, updatedAt}`` with epoch-second times.

Choices where the provider's documents are silent, so tests can rely on them:

* 401 ``{"detail": ...}`` without valid credentials, 403 when a Bearer token lacks the endpoint's
  scope, 404 for an unknown scheduler.
* Token requests asking for scopes beyond the client's: 403 ``{"detail": "Unauthorized scopes
  requested: <scopes>"}`` (the spec's 403). With ``oauth_strict_scopes`` the token endpoint
  refuses, as RFC 6749 §5.2 says, with 400 ``{"error": "invalid_scope", "error_description"}``
  naming the scopes: any scope the provider does not define (:data:`KNOWN_SCOPES`) and any
  beyond the client's.
* Rate limits are fixed windows aligned to the epoch (a minute by default; the window length is
  configurable so tests need not wait a real minute); every answer carries the
  ``x-ratelimit-{minute,day}-{limit,remaining,reset}`` headers, and a request over either budget is
  answered 429 (and still counted, as the provider counts it).
* ``paging.offset`` is the offset of the next page; ``paging.total`` is sent only when configured.
* Fault mode: a seeded fraction of API requests is answered 429, 500 or 503, or has its connection
  dropped in the middle of the answer.

Control endpoints under ``/_emulator/`` (not part of the provider's API, no authentication):
``GET stats``, ``POST stats/reset``, ``POST mutate`` (the body's keys are
:meth:`~emulator.data.Dataset.mutate`'s arguments), ``POST reset``, ``GET config``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import math
import random
import secrets
import threading
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Annotated, Any
from urllib.parse import parse_qs

import orjson
from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .data import Dataset, EmulatorConfig
from .documents import _json

CONTROL_PREFIX = "/_emulator"
TOKEN_PATH = "/oauth/v1/token"


def _known_scopes() -> frozenset[str]:
    from .spec_schemas import spec

    flows = spec()["components"]["securitySchemes"]["OAuth2"]["flows"]
    return frozenset(flows["clientCredentials"]["scopes"]) | {"documents.write"}


KNOWN_SCOPES = _known_scopes()
"""The scopes the provider defines: the spec's OAuth2 scheme, plus ``documents.write``, which
``service-interface.md`` names for the beta document-entry PUT (absent from the spec file)."""


@dataclass
class ServerOptions:
    """Behaviour of the emulated provider beyond its data.

    Attributes:
        api_key: The account's API key (``X-API-KEY``).
        oauth_clients: OAuth 2.0 clients: ``{client_id: {"secret": ..., "scopes": [...],
            "document_permissions": {...}}}``; ``scopes`` are what the client may be granted.
        oauth_strict_scopes: Refuse token requests naming an unknown scope or one beyond the
            client's with RFC 6749 ``invalid_scope`` (400) instead of the spec's 403.
        document_permissions: What the API key may do per document pack id:
            ``{"<packId>": "approve" | "upload"}``; a pack not listed is refused (403).
        minute_limit: Requests per rate-limit window (the provider's "per minute" budget).
        day_limit: Requests per UTC day.
        window_seconds: Length of the "minute" window in seconds (60 like the provider).
        latency: Seconds added to every API answer.
        fault_rate: Fraction (0..1) of API requests answered with a fault.
        fault_seed: Seed of the fault draw.
        paging_total: Whether paged answers carry ``paging.total``.
        failing_paths: Requests answered with a fixed status instead, as an outage of one
            listing would be: ``{"/jobs/v1/jobs?offset=500": 503}``. A key is a request path,
            optionally with query parameters the request must carry too (so a listing can
            fail after its first pages).
    """

    api_key: str = "emulator-key"
    oauth_clients: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            "emulator-client": {
                "secret": "emulator-secret",
                "scopes": [
                    "users.read",
                    "forms.read",
                    "schedule.read",
                    "documents.write",
                    "attachments.write",
                    "attachments.read",
                    "time_clock.read",
                    "jobs.read",
                    "time_off.read",
                    "quick_tasks.read",
                ],
                "document_permissions": {"1": "approve", "2": "upload", "3": "upload"},
            }
        }
    )
    oauth_strict_scopes: bool = False
    document_permissions: dict[str, str] = field(
        default_factory=lambda: {"1": "approve", "2": "upload", "3": "upload"}
    )
    minute_limit: int = 100
    day_limit: int = 10_000
    window_seconds: float = 60.0
    latency: float = 0.0
    fault_rate: float = 0.0
    fault_seed: int = 7
    paging_total: bool = False
    failing_paths: dict[str, int] = field(default_factory=dict)


class UserStatus(StrEnum):
    active = "active"
    archived = "archived"
    all = "all"


class ShiftSort(StrEnum):
    created_at = "created_at"
    updated_at = "updated_at"


class SortOrder(StrEnum):
    asc = "asc"
    desc = "desc"


class EmulatorState:
    """Everything the emulator holds: data, options, tokens, counters."""

    def __init__(self, config: EmulatorConfig, options: ServerOptions) -> None:
        self.config = config
        self.options = options
        self.dataset = Dataset.generate(config)
        self.tokens: dict[str, tuple[set[str], float, str]] = {}
        self.files: dict[str, dict[str, Any]] = {}
        self.entries: list[dict[str, Any]] = []  # every accepted document-entry PUT
        self.lock = threading.Lock()
        self.fault_rng = random.Random(options.fault_seed)
        self.windows: Counter[tuple[str, int]] = Counter()
        self.requests: Counter[str] = Counter()
        self.statuses: Counter[int] = Counter()
        self.faults: Counter[str] = Counter()
        self._listing_cache: dict[tuple[Any, ...], list[dict[str, Any]]] = {}

    def reset_counters(self) -> None:
        """Forget request counts (not rate-limit windows)."""
        with self.lock:
            self.requests.clear()
            self.statuses.clear()
            self.faults.clear()

    def shift_listing(
        self, scheduler_id: int, start: int, end: int, sort: ShiftSort, order: SortOrder
    ) -> list[dict[str, Any]]:
        """Shift rows of one scheduler overlapping ``[start, end)``, sorted; cached per version."""
        key = (self.dataset.version, scheduler_id, start, end, sort, order)
        cached = self._listing_cache.get(key)
        if cached is not None:
            return cached
        rows = [
            r
            for r in self.dataset.shifts[scheduler_id]
            if r["endTime"] > start and r["startTime"] < end
        ]
        field_name = "creationTime" if sort is ShiftSort.created_at else "updateTime"
        rows.sort(key=lambda r: (r[field_name], r["id"]), reverse=order is SortOrder.desc)
        if len(self._listing_cache) > 64:
            self._listing_cache.clear()
        self._listing_cache[key] = rows
        return rows


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
        template = _template(path)
        headers, over = _rate_headers(state, time.time())
        with state.lock:
            state.requests[template] += 1
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
    payload = orjson.dumps(body)
    raw_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    raw_headers += [(k.encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": payload})


PARENT_PLACEHOLDERS = {
    "schedulers": "{schedulerId}",
    "time-clocks": "{timeClockId}",
    "forms": "{formId}",
    "taskboards": "{taskBoardId}",
}


def _template(path: str) -> str:
    """The spec's path template of ``path`` (``/forms/v1/forms/{formId}/form-submissions``)."""
    parts = path.rstrip("/").split("/")
    for i in range(1, len(parts)):
        if parts[i].isdigit() and parts[i - 1] in PARENT_PLACEHOLDERS and i + 1 < len(parts):
            parts[i] = PARENT_PLACEHOLDERS[parts[i - 1]]
    return "/".join(parts) or "/"


def create_app(
    config: EmulatorConfig | None = None, options: ServerOptions | None = None
) -> FastAPI:
    """Build the emulator application.

    Args:
        config: Size and seed of the emulated account.
        options: Credentials, rate limits, latency, faults.

    Returns:
        A FastAPI app; its state is at ``app.state.emulator`` (:class:`EmulatorState`).
    """
    state = EmulatorState(config or EmulatorConfig(), options or ServerOptions())
    app = FastAPI(title="Connecteam API emulator", docs_url=None, redoc_url=None)
    app.state.emulator = state

    def require(scope_name: str | None) -> Any:
        return Depends(identify(state, scope_name))

    @app.post(TOKEN_PATH)
    async def oauth_token(request: Request) -> Response:
        auth = request.headers.get("authorization", "")
        client_id = secret = ""
        if auth.lower().startswith("basic "):
            with contextlib.suppress(ValueError):
                client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
        client = state.options.oauth_clients.get(client_id)
        if client is None or not secrets.compare_digest(secret.encode(), client["secret"].encode()):
            return _json({"detail": "Invalid client credentials"}, 401)
        form = parse_qs((await request.body()).decode())
        if form.get("grant_type", ["client_credentials"])[0] != "client_credentials":
            return _json({"detail": "Invalid grant type"}, 400)
        allowed = set(client["scopes"])
        asked = set(" ".join(form.get("scope", [])).split()) or allowed
        refused = sorted(asked - allowed)
        if state.options.oauth_strict_scopes:
            unknown = sorted(asked - KNOWN_SCOPES)
            if unknown or refused:
                parts = [f"unknown scope(s): {' '.join(unknown)}"] if unknown else []
                if refused:
                    parts.append(f"scope(s) not granted to this client: {' '.join(refused)}")
                return _json({"error": "invalid_scope", "error_description": "; ".join(parts)}, 400)
        elif refused:
            return _json({"detail": f"Unauthorized scopes requested: {' '.join(refused)}"}, 403)
        token = secrets.token_urlsafe(24)
        state.tokens[token] = (asked, time.time() + 86_400, client_id)
        return _json(
            {"access_token": token, "token_type": "Bearer", "expires_in": 86_400,
             "scope": " ".join(sorted(asked))}
        )  # fmt: skip

    def paged(key: str, items: list[dict[str, Any]], offset: int, limit: int) -> Response:
        page = items[offset : offset + limit]
        paging: dict[str, Any] = {"offset": offset + len(page)}
        if state.options.paging_total:
            paging["total"] = len(items)
        return _json({"requestId": str(uuid.uuid4()), "data": {key: page}, "paging": paging})

    @app.get("/users/v1/users", dependencies=[require("users.read")])
    async def get_users(
        limit: Annotated[int, Query(ge=1, le=500)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
        userStatus: UserStatus = UserStatus.active,  # noqa: N803 - the provider's name
        modifiedAt: Annotated[int | None, Query(ge=1)] = None,  # noqa: N803
        userIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
    ) -> Response:
        wanted = set(userIds or [])
        users = [
            u
            for u in state.dataset.users.values()
            if (
                userStatus is UserStatus.all
                or u["isArchived"] == (userStatus is UserStatus.archived)
            )
            and (modifiedAt is None or u["modifiedAt"] > modifiedAt)
            and (not wanted or u["userId"] in wanted)
        ]
        return paged("users", users, offset, limit)

    @app.get("/forms/v1/forms", dependencies=[require("forms.read")])
    async def get_forms(
        limit: Annotated[int, Query(ge=1, le=300)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        return paged("forms", list(state.dataset.forms.values()), offset, limit)

    @app.get("/scheduler/v1/schedulers", dependencies=[require("schedule.read")])
    async def get_schedulers() -> Response:
        return _json(
            {"requestId": str(uuid.uuid4()),
             "data": {"schedulers": list(state.dataset.schedulers.values())}}
        )  # fmt: skip

    @app.get(
        "/scheduler/v1/schedulers/{schedulerId}/shifts", dependencies=[require("schedule.read")]
    )
    async def get_shifts(
        schedulerId: Annotated[int, Path()],  # noqa: N803
        startTime: Annotated[int, Query()],  # noqa: N803
        endTime: Annotated[int, Query()],  # noqa: N803
        sort: ShiftSort = ShiftSort.created_at,
        order: SortOrder = SortOrder.asc,
        limit: Annotated[int, Query(ge=1, le=500)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
        isOpenShift: bool | None = None,  # noqa: N803
        assignedUserIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
        shiftId: Annotated[list[str] | None, Query()] = None,  # noqa: N803
    ) -> Response:
        if schedulerId not in state.dataset.schedulers:
            return _json({"detail": f"Scheduler {schedulerId} not found"}, 404)
        rows = state.shift_listing(schedulerId, startTime, endTime, sort, order)
        if isOpenShift is not None or assignedUserIds or shiftId:
            users, ids = set(assignedUserIds or []), set(shiftId or [])
            rows = [
                r
                for r in rows
                if (isOpenShift is None or r["isOpenShift"] == isOpenShift)
                and (not users or users & set(r.get("assignedUserIds") or []))
                and (not ids or r["id"] in ids or r["id"].split(":")[0] in ids)
            ]
        return paged("shifts", rows, offset, limit)

    @app.get("/documents/v1/user-documents", dependencies=[require(None)])
    async def get_user_documents(
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
        userIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
    ) -> Response:
        wanted = set(userIds or [])
        docs = [
            d
            for d in state.dataset.user_documents.values()
            if not wanted or d.get("userId") in wanted
        ]
        return paged("userDocuments", docs, offset, limit)

    # -- control endpoints -----------------------------------------------------------------------

    @app.get(CONTROL_PREFIX + "/stats")
    async def stats() -> Response:
        with state.lock:
            return _json(
                {
                    "requests": dict(state.requests),
                    "total": sum(state.requests.values()),
                    "statuses": {str(k): v for k, v in state.statuses.items()},
                    "document_entries": len(state.entries),
                    "faults": dict(state.faults),
                }
            )

    @app.post(CONTROL_PREFIX + "/stats/reset")
    async def stats_reset() -> Response:
        state.reset_counters()
        return _json({"ok": True})

    @app.post(CONTROL_PREFIX + "/mutate")
    async def mutate(request: Request) -> Response:
        body = orjson.loads(await request.body() or b"{}")
        try:
            with state.lock:
                touched = state.dataset.mutate(**body)
        except (TypeError, ValueError) as exc:
            return _json({"detail": f"mutate: {exc}"}, 422)
        return _json(touched)

    @app.post(CONTROL_PREFIX + "/reset")
    async def reset(request: Request) -> Response:
        """Regenerate the account; the body may override config and option fields."""
        body = orjson.loads(await request.body() or b"{}")
        config_fields = set(asdict(state.config))
        with state.lock:
            for key, value in body.items():
                target = state.config if key in config_fields else state.options
                if not hasattr(target, key):
                    return _json({"detail": f"unknown setting {key}"}, 422)
                setattr(target, key, value)
            state.dataset = Dataset.generate(state.config)
            state.fault_rng = random.Random(state.options.fault_seed)
            state.windows.clear()
            state._listing_cache.clear()
        state.reset_counters()
        return _json({"config": asdict(state.config), "options": asdict(state.options)})

    @app.get(CONTROL_PREFIX + "/config")
    async def get_config() -> JSONResponse:
        return JSONResponse({"config": asdict(state.config), "options": asdict(state.options)})

    from .documents import add_document_routes
    from .operations import add_operations_routes

    add_document_routes(app, state, require)
    add_operations_routes(app, state, require, paged)
    app.add_middleware(ProviderBehaviour, state=state)
    return app


def identify(state: EmulatorState, scope_name: str | None) -> Any:
    """A dependency that authenticates the request and returns the caller's identity:
    ``"api-key"`` or the OAuth client id (401 without valid credentials, 403 without the scope;
    ``scope_name`` ``None``: any valid token)."""

    def check(request: Request) -> str:
        key = request.headers.get("x-api-key")
        if key is not None:
            if secrets.compare_digest(key.encode(), state.options.api_key.encode()):
                return "api-key"
            raise HTTPException(401, "Invalid API key")
        auth = request.headers.get("authorization", "")
        if auth.lower().startswith("bearer "):
            token = state.tokens.get(auth[7:].strip())
            if token is None or token[1] < time.time():
                raise HTTPException(401, "Invalid or expired access token")
            if scope_name is not None and scope_name not in token[0]:
                raise HTTPException(403, f"The access token lacks the scope {scope_name}")
            return token[2]
        raise HTTPException(401, "Missing credentials: send X-API-KEY or a Bearer token")

    return check
