"""Standard Webhooks signatures, checked by the reference implementation (``standardwebhooks``).

A signed request carries ``webhook-id``, ``webhook-timestamp`` (epoch seconds, within 5 minutes of
the receiver's clock: the package's fixed tolerance) and ``webhook-signature`` (space-separated
``v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`` entries). This module turns the
package's verdict into the reason the receiver answers with its 401.

A body over the receiver's size limit is verified as it streams (:class:`StreamedSignature`:
the same HMAC-SHA256, computed chunk by chunk over the raw bytes, while only the first
``max_body_bytes`` are kept), so an oversize body is never quarantined unverified.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import math
import time
from collections.abc import Mapping, Sequence

from standardwebhooks import Webhook
from standardwebhooks.webhooks import EmptyWebhookSecretError, WebhookVerificationError

NO_MATCH = "signature does not match"
REASONS = {
    "Missing required headers": "missing webhook-id, webhook-timestamp or webhook-signature header",
    "Invalid Signature Headers": "webhook-timestamp is not an integer",
    "Message timestamp too old": "webhook-timestamp is outside the allowed 5 minutes",
    "Message timestamp too new": "webhook-timestamp is outside the allowed 5 minutes",
}
"""The package's messages (``WebhookVerificationError``) and the reasons the receiver answers;
any other message answers :data:`NO_MATCH`."""
TOLERANCE_SECONDS = 300
"""Seconds ``webhook-timestamp`` may be from the receiver's clock (the package's fixed 5 min)."""


def verifier(secret: str) -> Webhook:
    """The ``standardwebhooks`` verifier of a secret: ``whsec_<base64 key>`` as it is, or a
    plain-text key (its UTF-8 bytes are the key, given to the package base64-encoded).

    Raises:
        ValueError: The secret is empty or its base64 does not decode (``binascii.Error``).
    """
    if not secret.startswith("whsec_"):
        secret = base64.b64encode(secret.encode()).decode()
    try:
        return Webhook(secret)
    except EmptyWebhookSecretError as exc:
        raise ValueError(str(exc)) from exc


def signature_problem(webhook: Webhook, headers: Mapping[str, str], body: bytes) -> str | None:
    """``None`` when the request's Standard Webhooks signature verifies, else the reason.

    Args:
        webhook: From :func:`verifier`.
        headers: The request's headers (names in lower case, as Starlette gives them).
        body: The raw body. The package signs text: a body that is not UTF-8 cannot match a
            signature (its reason says so).
    """
    wanted = {name: headers.get(name) or "" for name in ("webhook-id", "webhook-timestamp")}
    # entries separated by any whitespace, as the spec allows; the package splits on one space
    wanted["webhook-signature"] = " ".join((headers.get("webhook-signature") or "").split())
    try:
        text = body.decode("utf-8")
        utf8 = True
    except UnicodeDecodeError:
        text, utf8 = body.decode("utf-8", errors="replace"), False
    try:
        webhook.verify(text, wanted, json_parse=False)
    except WebhookVerificationError as exc:
        reason = REASONS.get(str(exc), NO_MATCH)
    except ValueError:  # an entry that is not "<version>,<base64>"
        reason = NO_MATCH
    else:
        return None
    if reason == NO_MATCH and not utf8:
        reason += " (the body is not UTF-8 text, which Standard Webhooks signs)"
    return reason


def key_bytes(secret: str) -> bytes:
    """The HMAC key of a secret, as :func:`verifier` gives it to the package: the base64 after
    ``whsec_`` decoded, or a plain-text secret's UTF-8 bytes.

    Raises:
        ValueError: The secret is empty or its base64 does not decode.
    """
    if not secret.startswith("whsec_"):
        key = secret.encode()
    else:
        try:
            key = base64.b64decode(secret[len("whsec_") :] + "==")
        except binascii.Error as exc:
            raise ValueError(str(exc)) from exc
    if not key:
        raise ValueError("webhook secret may not be empty")
    return key


def header_problem(headers: Mapping[str, str], now: float | None = None) -> str | None:
    """The reason the signature headers cannot verify any body (missing, a timestamp that is not
    a number or is more than :data:`TOLERANCE_SECONDS` away from ``now``), else ``None``;
    checked before the body is read. The reasons are those of :data:`REASONS`."""
    if not all(headers.get(name) for name in ("webhook-id", "webhook-timestamp",
                                               "webhook-signature")):  # fmt: skip
        return REASONS["Missing required headers"]
    try:
        stamp = float(headers["webhook-timestamp"])
    except ValueError:
        return REASONS["Invalid Signature Headers"]
    if not math.isfinite(stamp):
        return REASONS["Invalid Signature Headers"]
    now = time.time() if now is None else now
    if abs(stamp - now) > TOLERANCE_SECONDS:
        return REASONS["Message timestamp too old"]
    return None


class StreamedSignature:
    """HMAC-SHA256 of ``"{webhook-id}.{webhook-timestamp}.{body}"`` under each of several keys,
    computed as the body arrives (the raw bytes; for UTF-8 text, what the package signs).

    Args:
        keys: HMAC keys (:func:`key_bytes`), in order of preference.
        headers: The request's headers, already passed by :func:`header_problem`.

    Attributes:
        abandoned: Set by the reader when it stopped before the body's end (too large or too
            slow to verify): then :meth:`matching_key` means nothing.
    """

    abandoned: bool = False

    def __init__(self, keys: Sequence[bytes], headers: Mapping[str, str]) -> None:
        stamp = math.floor(float(headers["webhook-timestamp"]))
        prefix = f"{headers['webhook-id']}.{stamp}.".encode()
        self._macs = [hmac.new(key, prefix, hashlib.sha256) for key in keys]
        self._presented = headers.get("webhook-signature") or ""

    def update(self, chunk: bytes) -> None:
        """Add the next bytes of the body."""
        for mac in self._macs:
            mac.update(chunk)

    def matching_key(self) -> int | None:
        """The index of the first key whose signature is among the presented ``v1`` entries, or
        ``None``.

        Entries are read in order, as the package reads them: one that is not
        ``<version>,<value>`` (or a ``v1`` value that is not base64) ends the reading, so a
        match before it counts and one after it does not.
        """
        wanted: list[bytes] = []
        for entry in self._presented.split():
            parts = entry.split(",")
            if len(parts) != 2:
                break
            version, value = parts
            if version != "v1":
                continue
            try:
                wanted.append(base64.b64decode(value))
            except binascii.Error:
                break
        for index, mac in enumerate(self._macs):
            digest = mac.digest()
            if any(hmac.compare_digest(digest, w) for w in wanted):
                return index
        return None
