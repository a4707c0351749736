"""Standard Webhooks signatures, checked by the reference implementation (``standardwebhooks``).

A signed request carries ``webhook-id``, ``webhook-timestamp`` (epoch seconds, within 5 minutes of
the receiver's clock: the package's fixed tolerance) and ``webhook-signature`` (space-separated
``v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`` entries). This module turns the
package's verdict into the reason the receiver answers with its 401.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping

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
