"""The receiver's FastAPI application: accepts the provider's event POSTs and stores each durably
in the inbox (:class:`sources.webhooks.Inbox`) before answering 200.

Routes:

``POST /webhooks/connecteam``
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
    * 503 only when the inbox itself failed (unreachable, locked past its busy timeout, disk
      full): the sender should retry. Nothing in a body leads to a 5xx.
``GET /healthz``
    200 ``{"status": "ok"}`` when the inbox answers, else 503.

Writes from concurrent requests are committed together by one writer thread
(:class:`receiver.writer.GroupCommitWriter`); each request still waits for its own commit. The
receiver never opens the warehouse.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response

from sources.webhooks import Inbox, ReceivedEvent, RefusedBody, StoredEvent
from sources.webhooks.events import Envelope, read_envelope

from .auth import Gate
from .settings import ReceiverSettings
from .writer import GroupCommitWriter, cause

PATH = "/webhooks/connecteam"


def _json(status: int, body: dict[str, Any]) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


def create_app(settings: ReceiverSettings) -> FastAPI:
    """Build the receiver application.

    Args:
        settings: Token, signing secret, inbox URL, limits.

    Returns:
        The FastAPI app; ``app.state.inbox`` is its :class:`Inbox`, ``app.state.writer`` its
        :class:`~receiver.writer.GroupCommitWriter`.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: The inbox could not be opened (its tables created).
    """
    inbox = Inbox(settings.inbox_url)
    writer = GroupCommitWriter(inbox)
    gate = Gate(settings, inbox.engine)

    app = FastAPI(title="wfm-sync webhook receiver", docs_url=None, redoc_url=None)
    app.state.inbox = inbox
    app.state.writer = writer
    app.state.gate = gate
    app.router.on_shutdown.append(writer.close)
    app.router.on_shutdown.append(gate.close)

    @app.get("/healthz")
    async def healthz() -> Response:
        try:
            await asyncio.to_thread(inbox.ping)
        except Exception as exc:  # noqa: BLE001 - reported as unhealthy
            return _json(503, {"status": "error", "detail": type(exc).__name__})
        return _json(200, {"status": "ok", "inbox": inbox.dialect})

    @app.post(PATH)
    async def receive(request: Request) -> Response:
        received_at = time.time()
        delivery = await gate.admit(request)  # token and signature; the body read
        if delivery.refusal is not None:
            return _json(401, {"detail": delivery.refusal.detail})
        content_type = request.headers.get("content-type")
        body = delivery.body
        if delivery.oversize is not None:
            return await _refuse(413, delivery.oversize, body, delivery.size, content_type,
                                 received_at)  # fmt: skip
        try:
            payload = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            return await _refuse(422, f"body is not JSON: {exc}", body, len(body), content_type,
                                 received_at)  # fmt: skip
        if not isinstance(payload, dict):
            kind = type(payload).__name__
            return await _refuse(422, f"body is JSON but not an object (got {kind})", body,
                                 len(body), content_type, received_at)  # fmt: skip
        try:
            envelope: Envelope = read_envelope(payload, body)
        except Exception as exc:  # noqa: BLE001 - a body our reading cannot take is refused
            return await _refuse(422, f"the envelope could not be read: {cause(exc)}", body,
                                 len(body), content_type, received_at)  # fmt: skip
        if not envelope.recognisable:
            return await _refuse(
                422,
                "no recognisable envelope: neither eventType nor eventTimestamp/evnetTimestamp",
                body, len(body), content_type, received_at,
            )  # fmt: skip
        try:
            outcome = await writer.write(ReceivedEvent(envelope, body, received_at, content_type))
        except Exception:  # noqa: BLE001 - the inbox failed (not the body): the sender retries
            return _json(503, {"detail": "the inbox could not store the event; retry"})
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

    async def _refuse(
        status: int,
        reason: str,
        body: bytes,
        size: int,
        content_type: str | None,
        received_at: float,
    ) -> Response:
        try:
            await writer.write(RefusedBody(status, reason, body, size, content_type, received_at))
        except Exception:  # noqa: BLE001
            return _json(503, {"detail": "the inbox could not keep the refused body; retry"})
        return _json(status, {"detail": reason})

    return app
