"""Who may deliver: the token(s) and signature of each request, checked before its body is
stored, every refusal counted in the inbox (:mod:`inbox.refusals`), and the previous
token and secret of a rotation retired once the new ones have been seen and the previous ones
have gone quiet.

Order of the checks, each refusal answered 401 with nothing stored:

1. The token (``X-Webhook-Token`` header or ``token`` query parameter, compared in constant
   time with the current and the previous token) before a byte of the body is read: reasons
   ``missing token``, ``wrong token``, ``retired previous token``.
2. With a signing secret, the signature headers (present, timestamp within 5 minutes), still
   before the body is read; then the signature over the body, by the ``standardwebhooks``
   package for a body within ``max_body_bytes`` and over the whole streamed body for a larger
   one (:class:`receiver.signature.StreamedSignature`), so an oversize body is quarantined (413)
   only once its signature verified. Reasons ``bad signature: <why>`` and
   ``retired previous signing secret``. A larger body is verified up to
   :data:`VERIFY_FACTOR` times ``max_body_bytes`` and within the answer deadline; beyond, it is
   answered 413, nothing kept, reason ``body too large to verify``. In report mode
   (``signature_mode = "report"``) these are counted as ``would-refuse: <reason>`` and the
   delivery goes on to be stored (an oversize body: quarantined).

Rotation: while ``previous_token`` or ``previous_signing_secret`` is set, the first delivery
made with the current credentials only and the last one made with a previous token or secret are
recorded in the inbox (:mod:`inbox.rotation`, shared by every receiver on it); the
previous ones are refused once the new ones have been seen and ``rotation_grace_seconds`` have
passed since both that sighting and the last use of the previous ones.
"""

from __future__ import annotations

import asyncio
import hmac
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from starlette.exceptions import HTTPException
from starlette.requests import Request

from inbox.refusals import WOULD_REFUSE, RefusalRecorder
from inbox.rotation import Rotation, fingerprint

from .config import ReceiverConfig
from .signature import (
    NO_MATCH,
    StreamedSignature,
    header_problem,
    key_bytes,
    signature_problem,
    verifier,
)

TOKEN_DETAIL = "missing or wrong webhook token"
"""What a token refusal answers, whatever its counted reason (a sender is not told that a token
was once valid)."""
RETIRED_SECRET = "retired previous signing secret"
TOO_LARGE = "body too large to verify"
VERIFY_FACTOR = 16
"""A signed body over ``max_body_bytes`` is read and verified up to this many times
``max_body_bytes``; a larger one is answered 413 unverified, nothing kept."""


@dataclass(frozen=True)
class Refusal:
    """A refused delivery: ``reason`` is counted, ``detail`` answered with the 401."""

    reason: str
    detail: str


@dataclass(frozen=True)
class Delivery:
    """What :meth:`Gate.admit` let through, or why not.

    Attributes:
        refusal: Set when the delivery is refused (answer 401, store nothing).
        body: The body, or its first ``max_body_bytes`` when it is larger.
        oversize: When the body is over ``max_body_bytes``: the 413 reason, in words.
        size: The body's size in bytes (declared or counted; at least ``max_body_bytes + 1``
            when it is over the limit and was not read to its end).
    """

    refusal: Refusal | None = None
    body: bytes = b""
    oversize: str | None = None
    size: int = 0


class Gate:
    """The receiver's authentication, built once per application.

    Args:
        settings: Tokens, secrets, signature mode, grace, body limit.
        engine: The inbox's engine, where refusals and sightings are recorded.

    Raises:
        sqlalchemy.exc.SQLAlchemyError: The refusal and rotation tables could not be created or
            read.
    """

    def __init__(self, settings: ReceiverConfig, engine: Engine) -> None:
        self.limit = settings.max_body_bytes
        self.verify_limit = VERIFY_FACTOR * settings.max_body_bytes
        self.deadline = settings.deadline_seconds
        self.report_only = settings.signature_mode == "report"
        self.grace = settings.rotation_grace_seconds
        self._tokens = [t.encode() for t in (settings.token, settings.previous_token) if t]
        secrets = [s for s in (settings.signing_secret, settings.previous_signing_secret) if s]
        self._webhooks = [verifier(s) for s in secrets]
        self._keys = [key_bytes(s) for s in secrets]
        self.rotation: Rotation | None = None
        if settings.previous_token or settings.previous_signing_secret:
            self.rotation = Rotation(
                fingerprint(settings.token, settings.signing_secret),
                fingerprint(settings.previous_token or settings.token,
                            settings.previous_signing_secret or settings.signing_secret),
            )  # fmt: skip
        self.recorder = RefusalRecorder(engine, self.rotation).start()

    def close(self) -> None:
        """Write the last counts (call at shutdown)."""
        self.recorder.close()

    def _retired(self, now: float) -> bool:
        return self.rotation is not None and self.rotation.retired(now, self.grace)

    def _refuse(self, reason: str, detail: str, now: float) -> Delivery:
        self.recorder.count(reason, now)
        return Delivery(refusal=Refusal(reason, detail))

    def _token(self, request: Request, now: float) -> tuple[Refusal | None, bool]:
        """The token's refusal, if any, and whether the previous token was used."""
        if not self._tokens:
            return None, False
        presented = request.headers.get("x-webhook-token") or request.query_params.get("token")
        if not presented:
            return Refusal("missing token", TOKEN_DETAIL), False
        given = presented.encode()
        matches = [hmac.compare_digest(given, token) for token in self._tokens]  # all compared
        if matches[0]:
            return None, False
        if len(matches) > 1 and matches[1]:
            if self._retired(now):
                return Refusal("retired previous token", TOKEN_DETAIL), True
            return None, True
        return Refusal("wrong token", TOKEN_DETAIL), False

    async def admit(self, request: Request) -> Delivery:
        """Check ``request``'s token and signature and read its body (see the module docstring).

        Returns:
            A :class:`Delivery`: refused (counted; the body unread, or read and dropped), or
            its body with ``oversize`` set when it is over ``max_body_bytes``.

        Raises:
            starlette.exceptions.HTTPException: 413, a signed body too large to verify (over
                :data:`VERIFY_FACTOR` times ``max_body_bytes``, or not received within the
                deadline), in enforce mode: counted, nothing kept.
        """
        now = time.time()
        refusal, old_token = self._token(request, now)
        if refusal is not None:
            return self._refuse(refusal.reason, refusal.detail, now)
        checking = bool(self._keys)
        if checking:
            problem = header_problem(request.headers, now)
            if problem is not None:
                if not self.report_only:
                    return self._refuse(f"bad signature: {problem}", f"bad signature: {problem}",
                                        now)  # fmt: skip
                self.recorder.count(f"{WOULD_REFUSE}bad signature: {problem}", now)
                checking = False
        body, size, streamed = await self._read(request, checking, time.monotonic())
        if streamed is not None and streamed.abandoned:
            self._unverifiable(now)  # raises, unless in report mode
            checking, streamed = False, None
        oversize = self._oversize(request, size, streamed is not None)
        key: int | None = None
        if checking:
            key, problem = self._verify(request, body, streamed)
            reason = f"bad signature: {problem}" if key is None else None
            if key == 1 and self._retired(now):
                reason, problem = RETIRED_SECRET, "signed with a secret that has been replaced"
            if reason is not None:
                if not self.report_only:
                    return self._refuse(reason, f"bad signature: {problem}", now)
                self.recorder.count(WOULD_REFUSE + reason, now)
                key = -1  # proof of neither secret
        self._note_rotation(old_token, key, now)
        return Delivery(body=body[: self.limit], oversize=oversize, size=size)

    def _unverifiable(self, now: float) -> None:
        """Count a body too large to verify; in enforce mode answer it 413."""
        if not self.report_only:
            self.recorder.count(TOO_LARGE, now)
            raise HTTPException(413, detail=(
                f"{TOO_LARGE}: over {self.verify_limit} bytes, or not received within "
                f"{self.deadline:g} s"
            ))  # fmt: skip
        self.recorder.count(WOULD_REFUSE + TOO_LARGE, now)

    def _oversize(self, request: Request, size: int, counted: bool) -> str | None:
        """The 413 reason of a body of ``size`` bytes read (``counted``: read to its end), or
        ``None`` when it is within ``max_body_bytes``."""
        if size <= self.limit:
            return None
        declared = request.headers.get("content-length") or ""
        if counted or (declared.isascii() and declared.isdigit()):
            size = size if counted else max(size, int(declared))
            return f"body of {size} bytes is over the {self.limit}-byte limit"
        return f"body is over the {self.limit}-byte limit"

    def _note_rotation(self, old_token: bool, key: int | None, now: float) -> None:
        """Record an accepted delivery in the rotation: one made with a previous token or secret
        (``key`` 1) as a use of them, one made with the current ones only as a sighting."""
        if self.rotation is None:
            return
        if old_token or key == 1:
            self.rotation.used_previous(now)
        elif key == 0 or (key is None and not self._keys):
            self.rotation.saw_current(now)

    def _verify(
        self, request: Request, body: bytes, streamed: StreamedSignature | None
    ) -> tuple[int | None, str]:
        """The index of the secret that signed the body (0 current, 1 previous), or ``None``
        and the reason (the current secret's)."""
        if streamed is not None:
            return streamed.matching_key(), NO_MATCH
        first: str | None = None
        for index, webhook in enumerate(self._webhooks):
            problem = signature_problem(webhook, request.headers, body)
            if problem is None:
                return index, ""
            first = first or problem
        return None, first or NO_MATCH

    async def _read(
        self, request: Request, verify: bool, started: float
    ) -> tuple[bytes, int, StreamedSignature | None]:
        """Read the body, keeping at most ``max_body_bytes + 1`` bytes. Past the limit, stop
        reading, unless ``verify``: then read on, every byte through a
        :class:`StreamedSignature` (:meth:`_stream_rest`).

        Returns:
            The bytes kept, the bytes read, the streamed signature (``None`` unless used).
        """
        kept = bytearray()
        chunks = request.stream()
        async for chunk in chunks:
            room = self.limit + 1 - len(kept)
            kept += chunk[:room]
            if len(kept) > self.limit:
                size = self.limit + 1 - room + len(chunk)  # every byte before it was kept
                if not verify:
                    return bytes(kept), size, None
                streamed = StreamedSignature(self._keys, request.headers)
                streamed.update(bytes(kept))
                streamed.update(chunk[room:])
                size = await self._stream_rest(chunks, streamed, size, started)
                return bytes(kept), size, streamed
        return bytes(kept), len(kept), None

    async def _stream_rest(
        self, chunks: AsyncIterator[bytes], streamed: StreamedSignature, size: int, started: float
    ) -> int:
        """Read the rest of an oversize body through ``streamed``, up to ``verify_limit`` bytes
        and until ``started`` (``time.monotonic()``) plus the deadline; beyond either, stop and
        mark it ``abandoned``. Returns the bytes read in all."""
        try:
            async with asyncio.timeout_at(
                asyncio.get_running_loop().time() + self.deadline - (time.monotonic() - started)
            ):
                while size <= self.verify_limit:
                    chunk = await anext(chunks, None)
                    if chunk is None:
                        return size
                    streamed.update(chunk)
                    size += len(chunk)
        except TimeoutError:
            pass
        streamed.abandoned = True
        return size
