"""The webhook receiver: accepts the provider's event POSTs and stores each durably before 200.

Routes:

``POST /webhooks/connecteam``
    * 401 when the shared token (``X-Webhook-Token`` header or ``token`` query parameter, compared
      in constant time) is wrong or missing, or, when a signing secret is configured, when the
      Standard Webhooks signature (``webhook-id``, ``webhook-timestamp``, ``webhook-signature``:
      HMAC-SHA256 over ``"{id}.{timestamp}.{body}"``, ±5 minutes) does not verify. Nothing is
      stored.
    * 413 for bodies over ``max_body_bytes`` (1 MiB); the first ``max_body_bytes`` are kept in
      quarantine.
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

Writes from concurrent requests are grouped into one transaction (group commit) by a single
writer thread, so the fsync per commit is shared; each request still waits for its own commit.
When a group fails because of a value in a body, it is split in halves and each retried, down to
the one body at fault, which is quarantined: one bad event never fails the others of its group.
The receiver never opens the warehouse.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import queue
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response

from .events import Envelope, read_envelope
from .inbox import Inbox, ReceivedEvent, RefusedBody, StoredEvent, caused_by_body

logger = logging.getLogger("sources.webhooks.receiver")

PATH = "/webhooks/connecteam"
MAX_BODY_BYTES = 1024 * 1024
SIGNATURE_TOLERANCE_SECONDS = 300


class ReceiverConfigError(Exception):
    """The receiver was started without what it needs (e.g. no token and not told to run open)."""


@dataclass(frozen=True)
class ReceiverSettings:
    """How the receiver authenticates and where it stores.

    Attributes:
        token: The shared token senders must present; ``None`` only with ``allow_open``.
        signing_secret: Standard Webhooks secret (``whsec_<base64>`` or raw text); when set, every
            request must also carry a valid signature.
        inbox_url: SQLAlchemy URL of the inbox.
        max_body_bytes: Largest accepted body.
        allow_open: Accept requests without a token (local experiments only).
    """

    token: str | None
    inbox_url: str
    signing_secret: str | None = None
    max_body_bytes: int = MAX_BODY_BYTES
    allow_open: bool = False

    def __post_init__(self) -> None:
        if not self.token and not self.allow_open:
            raise ReceiverConfigError(
                "no webhook token: set WEBHOOKS__TOKEN (or [webhooks] token in .dlt/secrets.toml), "
                "or pass --open to accept unauthenticated requests"
            )


Outcome = StoredEvent | RefusedBody | None
"""What a write came to: where an event was stored, the refusal an unstorable event became
(quarantined), or ``None`` for a refused body kept in quarantine."""


class _Job:
    __slots__ = ("future", "item", "loop")

    def __init__(self, item: ReceivedEvent | RefusedBody, loop: asyncio.AbstractEventLoop) -> None:
        self.item = item
        self.loop = loop
        self.future: asyncio.Future[Outcome] = loop.create_future()


class GroupCommitWriter:
    """One thread that commits the items of concurrent requests together.

    Args:
        inbox: Where to write.
        max_batch: Most items in one transaction.

    Attributes:
        groups: Groups taken from the queue so far (each committed together unless a body in it
            could not be stored).
    """

    def __init__(self, inbox: Inbox, max_batch: int = 512) -> None:
        self.inbox = inbox
        self.max_batch = max_batch
        self.groups = 0
        self._queue: queue.Queue[_Job | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="inbox-writer", daemon=True)
        self._thread.start()

    async def write(self, item: ReceivedEvent | RefusedBody) -> Outcome:
        """Return once ``item`` is committed: where an event went (:class:`StoredEvent`), or the
        :class:`RefusedBody` (status 422) it was quarantined as because the inbox could not
        store a value in it; ``None`` for a refused body. Raise what a failed commit raised
        (the inbox unreachable or locked: transient)."""
        job = _Job(item, asyncio.get_running_loop())
        self._queue.put(job)
        return await job.future

    def pending(self) -> int:
        """Items waiting for the writer thread (not yet taken into a group)."""
        return self._queue.qsize()

    def close(self) -> None:
        """Finish queued writes and stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            jobs = [first]
            stop = False
            while len(jobs) < self.max_batch:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                jobs.append(nxt)
            self.groups += 1
            self._commit(jobs)
            if stop:
                return

    def _commit(self, jobs: Sequence[_Job]) -> None:
        """Commit ``jobs`` together; on a failure caused by a body, halve and retry, so only the
        body at fault is refused (quarantined with 422)."""
        events = [j for j in jobs if isinstance(j.item, ReceivedEvent)]
        refused = [j for j in jobs if isinstance(j.item, RefusedBody)]
        try:
            stored = self.inbox.store(
                [cast(ReceivedEvent, j.item) for j in events],
                [cast(RefusedBody, j.item) for j in refused],
            )
        except Exception as exc:
            if not caused_by_body(exc):
                logger.exception("inbox commit of %d item(s) failed", len(jobs))
                for job in jobs:
                    _settle(job, error=exc)
                return
            if len(jobs) > 1:
                middle = len(jobs) // 2
                self._commit(jobs[:middle])
                self._commit(jobs[middle:])
                return
            self._refuse_unstorable(jobs[0], exc)
            return
        for job, outcome in zip(events, stored, strict=True):
            _settle(job, outcome)
        for job in refused:
            _settle(job, None)

    def _refuse_unstorable(self, job: _Job, exc: BaseException) -> None:
        """Quarantine the one event the inbox could not store (422, the reason named)."""
        item = job.item
        if not isinstance(item, ReceivedEvent):
            logger.error("inbox could not keep a refused body: %s", _cause(exc))
            _settle(job, error=exc)
            return
        reason = f"the inbox cannot store this event: {_cause(exc)}"
        refusal = RefusedBody(422, reason, item.body, len(item.body), item.content_type,
                              item.received_at)  # fmt: skip
        logger.warning("inbox refused an event (%s); quarantined", reason)
        try:
            self.inbox.store([], [refusal])
        except Exception as again:  # the inbox failed: the sender retries
            logger.exception("quarantine of an unstorable event failed")
            _settle(job, error=again)
            return
        _settle(job, refusal)


def _cause(exc: BaseException) -> str:
    """The first line of the driver's own message (not SQLAlchemy's, which quotes the SQL and
    its parameters), at most 300 characters."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).strip().splitlines()[0] if str(orig).strip() else ""
    return f"{type(orig).__name__}: {text}"[:300]


def _settle(job: _Job, outcome: Outcome = None, error: BaseException | None = None) -> None:
    job.loop.call_soon_threadsafe(_resolve, job.future, outcome, error)


def _resolve(
    future: asyncio.Future[Outcome], outcome: Outcome, error: BaseException | None
) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(outcome)
    else:
        future.set_exception(error)


def verify_signature(
    secret: str, headers: Any, body: bytes, now: float, tolerance: int = SIGNATURE_TOLERANCE_SECONDS
) -> str | None:
    """Check a Standard Webhooks signature; return ``None`` when valid, else the reason.

    Args:
        secret: ``whsec_<base64 key>`` or the key as plain text.
        headers: Request headers (``webhook-id``, ``webhook-timestamp``, ``webhook-signature``
            holding space-separated ``v1,<base64 HMAC-SHA256>`` entries).
        body: The raw body.
        now: Current epoch seconds.
        tolerance: Largest allowed clock difference in seconds.
    """
    msg_id = headers.get("webhook-id")
    stamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not (msg_id and stamp and signatures):
        return "missing webhook-id, webhook-timestamp or webhook-signature header"
    try:
        sent = int(stamp)
    except ValueError:
        return "webhook-timestamp is not an integer"
    if abs(now - sent) > tolerance:
        return "webhook-timestamp is outside the allowed 5 minutes"
    expected = base64.b64encode(
        hmac.new(signing_key(secret), f"{msg_id}.{stamp}.".encode() + body, hashlib.sha256).digest()
    )
    for entry in signatures.split():
        version, _, value = entry.partition(",")
        if version == "v1" and hmac.compare_digest(value.encode(), expected):
            return None
    return "signature does not match"


def signing_key(secret: str) -> bytes:
    """The HMAC key of a Standard Webhooks secret (``whsec_`` + base64), or the text itself."""
    if secret.startswith("whsec_"):
        return base64.b64decode(secret[len("whsec_") :])
    return secret.encode()


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """Standard Webhooks headers for ``body`` (what a sender adds; used by the emulator)."""
    digest = hmac.new(
        signing_key(secret), f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256
    ).digest()
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": "v1," + base64.b64encode(digest).decode(),
    }


def _json(status: int, body: dict[str, Any]) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


def create_app(settings: ReceiverSettings) -> FastAPI:
    """Build the receiver application.

    Args:
        settings: Token, signing secret, inbox URL, limits.

    Returns:
        The FastAPI app; ``app.state.inbox`` is its :class:`Inbox`.
    """
    inbox = Inbox(settings.inbox_url)
    writer = GroupCommitWriter(inbox)
    token = settings.token.encode() if settings.token else None
    limit = settings.max_body_bytes

    app = FastAPI(title="wfm-sync webhook receiver", docs_url=None, redoc_url=None)
    app.state.inbox = inbox
    app.state.writer = writer
    app.router.on_shutdown.append(writer.close)

    @app.get("/healthz")
    async def healthz() -> Response:
        try:
            await asyncio.to_thread(inbox.ping)
        except Exception as exc:  # noqa: BLE001 - reported as unhealthy
            return _json(503, {"status": "error", "detail": type(exc).__name__})
        return _json(200, {"status": "ok", "inbox": inbox.dialect})

    @app.post(PATH)
    async def receive(request: Request) -> Response:
        if token is not None:
            presented = request.headers.get("x-webhook-token") or request.query_params.get("token")
            if not presented or not hmac.compare_digest(presented.encode(), token):
                return _json(401, {"detail": "missing or wrong webhook token"})
        received_at = time.time()
        content_type = request.headers.get("content-type")
        declared = request.headers.get("content-length")
        if declared and declared.isascii() and declared.isdigit() and int(declared) > limit:
            body = await _read_limited(request, limit)
            return await _refuse(413, f"body of {declared} bytes is over the {limit}-byte limit",
                                 body, int(declared), content_type, received_at)  # fmt: skip
        body = await _read_limited(request, limit + 1)
        if len(body) > limit:
            return await _refuse(413, f"body is over the {limit}-byte limit", body[:limit],
                                 len(body), content_type, received_at)  # fmt: skip
        if settings.signing_secret:
            problem = verify_signature(settings.signing_secret, request.headers, body, received_at)
            if problem:
                return _json(401, {"detail": f"bad signature: {problem}"})
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
            return await _refuse(422, f"the envelope could not be read: {_cause(exc)}", body,
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


async def _read_limited(request: Request, limit: int) -> bytes:
    """Read at most ``limit`` bytes of the body (the rest is discarded unread)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        if size + len(chunk) >= limit:
            chunks.append(chunk[: limit - size])
            size = limit
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def settings_from_config(
    inbox_url: str | None = None, allow_open: bool = False
) -> ReceiverSettings:
    """Read the receiver's settings the dlt way.

    ``WEBHOOKS__TOKEN`` / ``[webhooks] token`` (secret), ``WEBHOOKS__SIGNING_SECRET`` (secret),
    ``WEBHOOKS__INBOX_URL`` (default ``sqlite:///data/inbox.sqlite3``),
    ``WEBHOOKS__MAX_BODY_BYTES`` (default 1 MiB).

    Raises:
        ReceiverConfigError: No token and ``allow_open`` is false.
    """
    from .inbox import config_value, inbox_url_from_config

    return ReceiverSettings(
        token=_text(config_value("token")),
        signing_secret=_text(config_value("signing_secret")),
        inbox_url=inbox_url or inbox_url_from_config(),
        max_body_bytes=int(config_value("max_body_bytes") or MAX_BODY_BYTES),
        allow_open=allow_open,
    )


def _text(value: Any) -> str | None:
    return None if value in (None, "") else str(value)
