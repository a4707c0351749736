"""Who may deliver: the token(s) and signature of each request, checked before its body is
stored, every refusal counted in the inbox (:mod:`sources.webhooks.refusals`), and the previous
token and secret of a rotation retired once the new ones have been seen.

Order of the checks, each refusal answered 401 with nothing stored:

1. The token (``X-Webhook-Token`` header or ``token`` query parameter, compared in constant
   time with the current and the previous token) before a byte of the body is read: reasons
   ``missing token``, ``wrong token``, ``retired previous token``.
2. With a signing secret, the signature headers (present, timestamp within 5 minutes), still
   before the body is read; then the signature over the body, by the ``standardwebhooks``
   package for a body within ``max_body_bytes`` and over the whole streamed body for a larger
   one (:class:`receiver.signature.StreamedSignature`), so an oversize body is quarantined (413)
   only once its signature verified. Reasons ``bad signature: <why>`` and
   ``retired previous signing secret``. In report mode (``signature_mode = "report"``) these are
   counted as ``would-refuse: <reason>`` and the delivery goes on to be stored.

Rotation: while ``previous_token`` or ``previous_signing_secret`` is set, the first delivery
made with the current credentials only is recorded in the inbox (shared by every receiver on
it); the previous ones are accepted until ``rotation_grace_seconds`` after that, then refused.
"""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from starlette.requests import Request

from sources.webhooks.refusals import WOULD_REFUSE, RefusalRecorder, fingerprint

from .settings import ReceiverSettings
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
        sqlalchemy.exc.SQLAlchemyError: The refusal tables could not be created or read.
    """

    def __init__(self, settings: ReceiverSettings, engine: Engine) -> None:
        self.limit = settings.max_body_bytes
        self.report_only = settings.signature_mode == "report"
        self.grace = settings.rotation_grace_seconds
        self._tokens = [t.encode() for t in (settings.token, settings.previous_token) if t]
        secrets = [s for s in (settings.signing_secret, settings.previous_signing_secret) if s]
        self._webhooks = [verifier(s) for s in secrets]
        self._keys = [key_bytes(s) for s in secrets]
        rotating = bool(settings.previous_token or settings.previous_signing_secret)
        watch = fingerprint(settings.token, settings.signing_secret) if rotating else None
        self.recorder = RefusalRecorder(engine, watch).start()

    def close(self) -> None:
        """Write the last counts (call at shutdown)."""
        self.recorder.close()

    def _retired(self, now: float) -> bool:
        seen = self.recorder.first_seen
        return seen is not None and now > seen + self.grace

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
        body, size, streamed = await self._read(request, checking)
        oversize = None
        if size > self.limit:
            declared = request.headers.get("content-length") or ""
            if streamed is not None or (declared.isascii() and declared.isdigit()):
                size = size if streamed is not None else max(size, int(declared))
                oversize = f"body of {size} bytes is over the {self.limit}-byte limit"
            else:
                oversize = f"body is over the {self.limit}-byte limit"
        old_secret = False
        if checking:
            key, problem = self._verify(request, body, streamed)
            reason = f"bad signature: {problem}" if key is None else None
            old_secret = key == 1
            if old_secret and self._retired(now):
                reason, problem = RETIRED_SECRET, "signed with a secret that has been replaced"
            if reason is not None:
                if not self.report_only:
                    return self._refuse(reason, f"bad signature: {problem}", now)
                self.recorder.count(WOULD_REFUSE + reason, now)
                old_secret = True  # not proof of the current secret
        current_only = not old_token and not old_secret and (checking or not self._keys)
        if current_only and self.recorder.watch is not None:
            self.recorder.saw_watched(now)  # the new token (and secret) seen: the grace starts
        return Delivery(body=body[: self.limit], oversize=oversize, size=size)

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
        self, request: Request, verify: bool
    ) -> tuple[bytes, int, StreamedSignature | None]:
        """Read the body, keeping at most ``max_body_bytes + 1`` bytes. Past the limit, stop
        reading, unless ``verify``: then read to the end, every byte through a
        :class:`StreamedSignature`.

        Returns:
            The bytes kept, the bytes read, the streamed signature (``None`` unless used).
        """
        kept = bytearray()
        size = 0
        streamed: StreamedSignature | None = None
        async for chunk in request.stream():
            room = self.limit + 1 - len(kept)
            head = chunk[:room] if room > 0 else b""
            kept += head
            size += len(chunk)
            if streamed is not None:
                streamed.update(chunk)
            elif size > self.limit:
                if not verify:
                    break
                streamed = StreamedSignature(self._keys, request.headers)
                streamed.update(bytes(kept))
                streamed.update(chunk[len(head) :])
        return bytes(kept), size, streamed
