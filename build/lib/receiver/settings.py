"""What the receiver needs to start: its token, signing secret, inbox and body limit.

Read from the ``[webhooks]`` configuration (:class:`sources.webhooks.WebhooksConfiguration`:
``WEBHOOKS__TOKEN``, ``WEBHOOKS__SIGNING_SECRET``, ``WEBHOOKS__INBOX_URL``,
``WEBHOOKS__MAX_BODY_BYTES``) by :func:`settings_from_config`, or built directly by tests and
the demo.
"""

from __future__ import annotations

from dataclasses import dataclass

from sources.webhooks.config import (
    DEFAULT_INBOX_URL,
    MAX_BODY_BYTES,
    InboxURLError,
    check_inbox_url,
    webhooks_configuration,
)

from .signature import verifier


class ReceiverConfigError(Exception):
    """The receiver was started without what it needs (no token and not told to run open, or a
    signing secret that is not a usable key)."""


@dataclass(frozen=True)
class ReceiverSettings:
    """How the receiver authenticates and where it stores.

    Attributes:
        token: The shared token senders must present; ``None`` only with ``allow_open``.
        inbox_url: SQLAlchemy URL of the inbox.
        signing_secret: Standard Webhooks secret (``whsec_<base64>`` or plain text); when set,
            every request must also carry a valid signature.
        max_body_bytes: Largest accepted body, in bytes.
        allow_open: Accept requests without a token (local experiments only).

    Raises:
        ReceiverConfigError: No token and ``allow_open`` is false, or the signing secret's
            base64 does not decode.
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
        if self.signing_secret:
            try:
                verifier(self.signing_secret)
            except ValueError as exc:
                raise ReceiverConfigError(
                    "WEBHOOKS__SIGNING_SECRET is not a Standard Webhooks secret (whsec_<base64> "
                    f"or plain text): {exc}"
                ) from None


def settings_from_config(
    inbox_url: str | None = None, allow_open: bool = False
) -> ReceiverSettings:
    """The receiver's settings from the ``[webhooks]`` configuration (empty values count as
    unset; ``inbox_url`` and ``max_body_bytes`` then take their defaults,
    ``sqlite:///data/inbox.sqlite3`` and 1 MiB).

    Args:
        inbox_url: Overrides ``WEBHOOKS__INBOX_URL`` when given.
        allow_open: Accept requests without a token.

    Raises:
        ReceiverConfigError: No token and ``allow_open`` is false, or the inbox URL is not
            usable (:func:`sources.webhooks.config.check_inbox_url`).
    """
    config = webhooks_configuration()
    url = inbox_url or config.inbox_url or DEFAULT_INBOX_URL
    try:
        url = check_inbox_url(url, "--inbox-url" if inbox_url else "WEBHOOKS__INBOX_URL")
    except InboxURLError as exc:
        raise ReceiverConfigError(str(exc)) from None
    return ReceiverSettings(
        token=config.token or None,
        signing_secret=config.signing_secret or None,
        inbox_url=url,
        max_body_bytes=config.max_body_bytes or MAX_BODY_BYTES,
        allow_open=allow_open,
    )
