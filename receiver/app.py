"""The receiver's FastAPI application: accepts the provider's event POSTs and stores each durably
in the inbox (:class:`inbox.Inbox`) before answering 200.

Routes:

``POST /webhooks/connecteam`` (the ``default`` account), ``POST /webhooks/connecteam/<account>``
(a named account: its own token and signing secret, :class:`~receiver.config.AccountAuth`; the
event stored with the account and keyed ``<account>:<key>``; 404 for a name the receiver has no
token for)
    * 401 when the shared token (``X-Webhook-Token`` header or ``token`` query parameter, compared
      in constant time; during a rotation the previous one too) is wrong or missing, or, when a
      signing secret is configured, when the Standard Webhooks signature (``webhook-id``,
      ``webhook-timestamp``, ``webhook-signature``, ±5 minutes) does not verify. Nothing is
      stored; the refusal is counted by reason in the inbox (:mod:`receiver.auth`).
    * 413 for bodies over ``max_body_bytes`` (1 MiB), once the token (and signature, verified
      over the whole body) passed; the first ``max_body_bytes`` are kept in quarantine.
    * 422 with a reason for a body that is not JSON, not an object, has neither an event type
      nor an event time, or holds a value the inbox database cannot store; the raw body is kept
      in quarantine.
    * 200 ``{"status": "stored", "eventKey": ...}`` once the event is committed in the inbox
      (``"keyConflictOf"`` added when its key was stored with another body: it is stored as an
      event of its own). An exact re-delivery (the provider retries up to 3 times, 60 s apart)
      answers 200 ``{"status": "already stored"}`` and is stored once. Unknown event types are
      stored with family ``unknown``; implausible event times are stored flagged
      (``is_event_time_implausible``).
    * 408 when the body did not arrive within the deadline (a sender a byte at a time): counted
      with the connections' events (:mod:`receiver.connections`), nothing stored.
    * 503 with ``Retry-After`` only when the inbox could not take the event: the writer's queue
      is full (at once), the event was not committed within the deadline (``deadline_seconds``,
      10 s: it is then not stored), the inbox failed (unreachable, locked, disk full) or the
      writer thread died; and, before any route, for a connection past the cap
      (:mod:`receiver.connections`). The sender should retry. Nothing in a body leads to a 5xx.
``GET /healthz``
    200 ``{"status": "ok", "inbox": <dialect>}`` when the writer is alive and making progress,
    fewer connections are open than the cap, and a real write to the inbox
    (:meth:`inbox.Inbox.probe`) succeeds within :data:`PROBE_TIMEOUT`; else 503
    ``{"status": "error", "reason": ...}``.

Writes from concurrent requests are committed together by one writer thread
(:class:`receiver.writer.GroupCommitWriter`), each request within its deadline. The receiver
never opens the warehouse.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.requests import ClientDisconnect

from inbox import Inbox, ReceivedEvent, RefusedBody, StoredEvent
from inbox.envelope import Envelope, account_envelope, read_envelope

from .auth import Gate
from .config import ReceiverConfig
from .connections import (
    DISCONNECTED,
    LOG_EVERY,
    SLOW_BODY,
    ConnectionBounds,
    ConnectionEvents,
    default_max_connections,
    file_limit,
)
from .jobs import DeadlineExceededError, WriterBusyError, WriterDeadError, cause
from .writer import GroupCommitWriter

PATH = "/webhooks/connecteam"
BODY_GRACE = 0.1
"""Seconds past the deadline at which a body still arriving is answered 408: the gate's own
deadline for a signed body too large to verify (answered 413) comes first."""
UNKNOWN_ACCOUNT = "unknown account"
"""The refusal counted for a delivery to ``/webhooks/connecteam/<name>`` of no configured
account."""
PROBE_TIMEOUT = 2.0
"""Seconds ``/healthz``'s write probe may wait for the inbox (at most the deadline)."""


def _json(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    return Response(
        orjson.dumps(body), status_code=status, media_type="application/json", headers=headers
    )


def create_app(
    settings: ReceiverConfig,
    on_writer_death: Callable[[BaseException], None] | None = None,
) -> FastAPI:
    """Build the receiver application.

    Args:
        settings: Token, signing secret, inbox URL, limits, deadline, queue size, quarantine
            budget.
        on_writer_death: Called, in the writer thread, with the exception that killed it
            (``wfm-sync webhooks serve`` stops the process); requests are answered 503 either
            way.

    Returns:
        The FastAPI app; ``app.state.inbox`` is its :class:`Inbox`, ``app.state.writer`` its
        :class:`~receiver.writer.GroupCommitWriter`, ``app.state.bounds`` its
        :class:`~receiver.connections.ConnectionBounds` (``settings.max_connections``, else
        derived from the open-file limit; enforced by the server's protocol,
        :func:`~receiver.connections.bounded_protocol`).

    Raises:
        sqlalchemy.exc.SQLAlchemyError: The inbox could not be opened (its tables created).
    """
    inbox = Inbox(settings.inbox_url, quarantine_max_bytes=settings.quarantine_max_bytes,
                  statement_timeout=settings.deadline_seconds)  # fmt: skip
    writer = GroupCommitWriter(
        inbox,
        deadline=settings.deadline_seconds,
        queue_size=settings.queue_size,
        on_death=on_writer_death,
    )
    gate = Gate(settings, inbox.engine)
    account_gates = {name: Gate(settings.for_account(name), inbox.engine)
                     for name in settings.accounts}  # fmt: skip
    cap = settings.max_connections or default_max_connections(file_limit())
    retry_after = math.ceil(settings.deadline_seconds)
    bounds = ConnectionBounds(cap, retry_after, ConnectionEvents(gate.recorder.count))
    routes = _Routes(settings, inbox, writer, gate, bounds)
    routes.account_gates = account_gates

    app = FastAPI(title="wfm-sync webhook receiver", docs_url=None, redoc_url=None)
    app.state.inbox = inbox
    app.state.writer = writer
    app.state.gate = routes.gate
    app.state.bounds = bounds
    app.router.on_startup.append(routes.start)
    app.router.on_shutdown.append(routes.stop)
    app.router.on_shutdown.append(writer.close)
    app.router.on_shutdown.append(routes.gate.close)
    for account_gate in account_gates.values():
        app.router.on_shutdown.append(account_gate.close)
    app.add_api_route("/healthz", routes.healthz, methods=["GET"])
    if settings.token or settings.allow_open:  # the default account's path
        app.add_api_route(PATH, routes.receive, methods=["POST"])
    app.add_api_route(PATH + "/{account}", routes.receive_account, methods=["POST"])
    return app


def read_body(body: bytes) -> Envelope | str:
    """The envelope of a delivered body, or why the body is refused (422): not JSON, not an
    object, an object repeating a key (:func:`repeated_key`), an envelope that could not be
    read, or neither an event type nor an event time."""
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        return f"body is not JSON: {exc}"
    if not isinstance(payload, dict):
        return f"body is JSON but not an object (got {type(payload).__name__})"
    try:
        repeated = repeated_key(body)
    except RecursionError:
        return "body nests objects and lists too deeply to be read"
    if repeated is not None:
        return (
            f"body repeats the key {repeated!r} within one object: JSON readers disagree on "
            "which copy counts (the receiver's kept the last, the warehouse's the first)"
        )
    try:
        envelope: Envelope = read_envelope(payload, body)
    except Exception as exc:  # noqa: BLE001 - a body our reading cannot take is refused
        return f"the envelope could not be read: {cause(exc)}"
    if not envelope.recognisable:
        return "no recognisable envelope: neither eventType nor eventTimestamp/evnetTimestamp"
    return envelope


class _RepeatedKeyError(ValueError):
    """A JSON object named one key twice (the key is the exception's argument)."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' object hook: the object, unless it names a key twice."""
    unique = dict(pairs)
    if len(unique) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise _RepeatedKeyError(name)
            seen.add(name)
    return unique


def repeated_key(body: bytes) -> str | None:
    """The first key an object of ``body`` (valid JSON) names twice, at any depth; ``None``
    when every object's keys are unique. orjson keeps a repeated key's last copy, DuckDB's JSON
    functions its first: such a body would be read two ways, so the receiver refuses it. One
    pass over each object's keys.

    Raises:
        RecursionError: ``body`` nests deeper than Python's JSON reader goes.
    """
    try:
        json.loads(body, object_pairs_hook=_unique_pairs)
    except _RepeatedKeyError as exc:
        return str(exc.args[0])
    return None


class _Routes:
    """The receiver's two routes over one inbox, writer and gate."""

    def __init__(
        self, settings: ReceiverConfig, inbox: Inbox, writer: GroupCommitWriter, gate: Gate,
        bounds: ConnectionBounds,
    ) -> None:  # fmt: skip
        self.settings = settings
        self.inbox = inbox
        self.writer = writer
        self.gate = gate
        self.account_gates: dict[str, Gate] = {}
        self.bounds = bounds
        self.retry_after = {"Retry-After": str(bounds.retry_after)}
        self.probe_timeout = min(PROBE_TIMEOUT, settings.deadline_seconds)
        self.probing: asyncio.Task[None] | None = None
        self.logging: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """At start-up: a failed ``accept`` counted, not logged per attempt; the connections'
        counts logged once a minute."""
        asyncio.get_running_loop().set_exception_handler(self.bounds.accept_errors)
        self.logging = asyncio.ensure_future(self._log_counts())

    async def stop(self) -> None:
        """At shutdown: the last counts logged."""
        if self.logging is not None:
            self.logging.cancel()
        self.bounds.events.log_due(force=True)

    async def _log_counts(self) -> None:
        while True:
            await asyncio.sleep(LOG_EVERY)
            self.bounds.events.log_due()

    async def healthz(self) -> Response:
        """``GET /healthz``."""
        problem = self.writer.problem()
        if problem is None and self.bounds.at_cap:
            problem = f"{self.bounds.max_connections} connections open: at the cap"
        if problem is None:
            problem = await self._probe()
        if problem is not None:
            return _json(503, {"status": "error", "reason": problem})
        return _json(200, {"status": "ok", "inbox": self.inbox.dialect})

    async def _probe(self) -> str | None:
        """Why a real write to the inbox failed, or ``None``; concurrent checks share one."""
        task = self.probing
        if task is None or task.done():
            task = asyncio.ensure_future(asyncio.to_thread(self.inbox.probe, self.probe_timeout))
            self.probing = task
        try:
            await asyncio.wait_for(asyncio.shield(task), self.probe_timeout + 1)
        except TimeoutError:
            return f"the inbox write probe did not finish within {self.probe_timeout + 1:g} s"
        except Exception as exc:  # noqa: BLE001 - reported as unhealthy
            return f"the inbox is not writable: {cause(exc)}"
        return None

    async def receive(self, request: Request) -> Response:
        """``POST /webhooks/connecteam``: the ``default`` account's deliveries."""
        return await self._receive(request, self.gate, None)

    async def receive_account(self, request: Request, account: str) -> Response:
        """``POST /webhooks/connecteam/<account>``: a named account's deliveries, checked
        against its own token (and signing secret), stored with the account; 404 for an
        account this receiver has no token for (counted as refusal ``unknown account``)."""
        gate = self.account_gates.get(account)
        if gate is None:
            self.gate.recorder.count(UNKNOWN_ACCOUNT, time.time())
            return _json(404, {"detail": "no such webhook path"})
        return await self._receive(request, gate, account)

    async def _receive(self, request: Request, gate: Gate, account: str | None) -> Response:
        """One delivery through ``gate``, stored for ``account`` (``None``: ``default``)."""
        received_at = time.time()
        deadline = time.monotonic() + self.settings.deadline_seconds
        try:  # token and signature; the body read, within the deadline whatever its pace
            async with asyncio.timeout(self.settings.deadline_seconds + BODY_GRACE):
                delivery = await gate.admit(request)
        except TimeoutError:
            self.bounds.events.note(SLOW_BODY)
            detail = f"the body was not received within {self.settings.deadline_seconds:g} s"
            return _json(408, {"detail": detail}, {"Connection": "close"})
        except ClientDisconnect:
            self.bounds.events.note(DISCONNECTED)
            return Response(status_code=400)  # no one is there to read it
        if delivery.refusal is not None:
            return _json(401, {"detail": delivery.refusal.detail})
        content_type = request.headers.get("content-type")
        body = delivery.body
        if delivery.oversize is not None:
            oversize = RefusedBody(413, delivery.oversize, body, delivery.size, content_type,
                                   received_at)  # fmt: skip
            return await self._refuse(oversize, deadline)
        envelope = read_body(body)
        if isinstance(envelope, str):
            malformed = RefusedBody(422, envelope, body, len(body), content_type, received_at)
            return await self._refuse(malformed, deadline)
        if account is not None:
            envelope = account_envelope(envelope, account)
        event = ReceivedEvent(envelope, body, received_at, content_type, account)
        try:
            outcome = await self.writer.write(event, deadline)
        except Exception as exc:  # noqa: BLE001 - the inbox failed (not the body): the sender retries
            return self._unavailable(exc, "the event")
        if isinstance(outcome, RefusedBody):
            return _json(outcome.status_code, {"detail": outcome.reason})
        assert isinstance(outcome, StoredEvent)
        answer: dict[str, Any] = {
            "status": "already stored" if outcome.outcome == "redelivery" else "stored",
            "eventKey": outcome.event_key,
        }
        if outcome.conflict_of is not None:
            answer["keyConflictOf"] = outcome.conflict_of
        return _json(200, answer)

    async def _refuse(self, refusal: RefusedBody, deadline: float) -> Response:
        """Keep a refused body in quarantine, then answer its status and reason."""
        try:
            await self.writer.write(refusal, deadline)
        except Exception as exc:  # noqa: BLE001
            return self._unavailable(exc, "the refused body")
        return _json(refusal.status_code, {"detail": refusal.reason})

    def _unavailable(self, exc: Exception, what: str) -> Response:
        """The 503 for a write the writer could not make (``what``: the event, the body)."""
        if isinstance(exc, WriterBusyError):
            reason = f"the receiver is busy ({exc}); retry"
        elif isinstance(exc, DeadlineExceededError):
            deadline = self.settings.deadline_seconds
            reason = f"the inbox did not commit {what} within {deadline:g} s; retry"
        elif isinstance(exc, WriterDeadError):
            reason = "the receiver is stopping (its inbox writer died); retry"
        else:
            reason = f"the inbox could not store {what}; retry"
        return _json(503, {"detail": reason}, self.retry_after)
