"""What the receiver needs to start: its token, signing secret, inbox, body limit, answer
deadline, queue size and quarantine budget, and the previous token and secret of a rotation.

Read from the ``[webhooks]`` configuration (:class:`sources.webhooks.config.WebhooksConfiguration`:
``WEBHOOKS__TOKEN``, ``WEBHOOKS__SIGNING_SECRET``, ``WEBHOOKS__INBOX_URL``,
``WEBHOOKS__MAX_BODY_BYTES``, ``WEBHOOKS__DEADLINE_SECONDS``, ``WEBHOOKS__QUEUE_SIZE``,
``WEBHOOKS__QUARANTINE_MAX_BYTES``, ``WEBHOOKS__PREVIOUS_TOKEN``,
``WEBHOOKS__PREVIOUS_SIGNING_SECRET``, ``WEBHOOKS__SIGNATURE_MODE``,
``WEBHOOKS__ROTATION_GRACE_SECONDS``) by the ``serve`` command's edge
(:func:`flows.cli.receiving.receiver_config_from_dlt`), or built directly by tests and the demo.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from inbox.defaults import (
    DEADLINE_SECONDS,
    MAX_BODY_BYTES,
    QUARANTINE_MAX_BYTES,
    QUEUE_SIZE,
    ROTATION_GRACE_SECONDS,
    SIGNATURE_MODES,
)

from .signature import verifier

PROVIDER_WAIT = 30
"""Seconds the provider waits for an answer before it counts a delivery as failed."""
MAX_DEADLINE = 20.0
"""The longest answer deadline allowed: with the writer's commit grace (at most 5 s) every answer
still comes before the provider gives up."""


ACCOUNT_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
"""A named account (as ``[sources.connecteam.accounts.<name>]`` names it)."""


@dataclass(frozen=True)
class AccountAuth:
    """How one named account's deliveries authenticate, at ``/webhooks/connecteam/<name>``.

    Attributes:
        token: The account's own shared token (``WEBHOOKS__ACCOUNTS__<NAME>__TOKEN``).
        signing_secret: Its Standard Webhooks secret, when its deliveries are signed
            (``WEBHOOKS__ACCOUNTS__<NAME>__SIGNING_SECRET``).
    """

    token: str
    signing_secret: str | None = None


class ReceiverConfigError(Exception):
    """The receiver was started without what it needs (no token and not told to run open, a
    signing secret that is not a usable key) or with rotation or signature settings that do not
    fit together."""


@dataclass(frozen=True)
class ReceiverConfig:
    """How the receiver authenticates and where it stores.

    Attributes:
        token: The shared token senders must present; ``None`` only with ``allow_open``.
        inbox_url: SQLAlchemy URL of the inbox.
        signing_secret: Standard Webhooks secret (``whsec_<base64>`` or plain text); when set,
            every request must also carry a valid signature.
        max_body_bytes: Largest accepted body, in bytes.
        allow_open: Accept requests without a token (local experiments only).
        previous_token: The token being replaced: accepted until ``token`` has been seen and
            the previous token has gone unused for ``rotation_grace_seconds``
            (:mod:`receiver.auth`).
        previous_signing_secret: The signing secret being replaced, accepted on the same terms.
        signature_mode: ``enforce`` (a bad signature answers 401) or ``report`` (it is counted
            as ``would-refuse: ...`` and the event stored).
        rotation_grace_seconds: Seconds the previous token and secret must have gone unused,
            once the new ones have been seen, before they are refused.
        deadline_seconds: Seconds within which every request is answered (more than 0, at
            most :data:`MAX_DEADLINE`); a delivery not committed by then is answered 503 and
            not stored.
        queue_size: Deliveries that may wait for the writer; beyond, 503 at once.
        quarantine_max_bytes: Most bytes of refused bodies kept in the inbox (at least
            ``max_body_bytes``).
        max_connections: Connections open at once at most (``None``: derived from the
            open-file limit, :func:`receiver.connections.default_max_connections`).
        accounts: The named accounts whose deliveries come in on
            ``/webhooks/connecteam/<name>``, each with its own token (and signing secret);
            ``token`` is the ``default`` account's, at ``/webhooks/connecteam``, and may be
            unset when accounts are named (that path then takes no delivery).

    Raises:
        ReceiverConfigError: No token and ``allow_open`` is false, a signing secret whose base64
            does not decode, an unknown signature mode, a previous token or secret without a
            current one (or equal to it), a negative grace, or a limit out of its range (the
            message names the setting).
    """

    token: str | None
    inbox_url: str
    signing_secret: str | None = None
    max_body_bytes: int = MAX_BODY_BYTES
    allow_open: bool = False
    previous_token: str | None = None
    previous_signing_secret: str | None = None
    signature_mode: str = "enforce"
    rotation_grace_seconds: float = ROTATION_GRACE_SECONDS
    deadline_seconds: float = DEADLINE_SECONDS
    queue_size: int = QUEUE_SIZE
    quarantine_max_bytes: int = QUARANTINE_MAX_BYTES
    max_connections: int | None = None
    accounts: dict[str, AccountAuth] = field(default_factory=dict)

    def for_account(self, name: str) -> ReceiverConfig:
        """These settings with account ``name``'s token and signing secret in place of the
        ``default`` account's (no rotation under way)."""
        auth = self.accounts[name]
        return replace(
            self, token=auth.token, signing_secret=auth.signing_secret, previous_token=None,
            previous_signing_secret=None, accounts={},
        )  # fmt: skip

    def __post_init__(self) -> None:
        if self.max_connections is not None and self.max_connections < 1:
            raise ReceiverConfigError(
                f"WEBHOOKS__MAX_CONNECTIONS is {self.max_connections}: give at least 1, or leave "
                "it unset to derive it from the open-file limit"
            )
        if not 0 < self.deadline_seconds <= MAX_DEADLINE:
            raise ReceiverConfigError(
                f"WEBHOOKS__DEADLINE_SECONDS (or --deadline) is {self.deadline_seconds:g}: give "
                f"more than 0 and at most {MAX_DEADLINE:g} seconds (the provider waits "
                f"{PROVIDER_WAIT} s for an answer), e.g. 10"
            )
        if self.queue_size < 1:
            raise ReceiverConfigError(
                f"WEBHOOKS__QUEUE_SIZE (or --queue-size) is {self.queue_size}: give at least 1, "
                "e.g. 1000"
            )
        if self.quarantine_max_bytes < self.max_body_bytes:
            raise ReceiverConfigError(
                f"WEBHOOKS__QUARANTINE_MAX_BYTES is {self.quarantine_max_bytes}: give at least "
                f"WEBHOOKS__MAX_BODY_BYTES ({self.max_body_bytes}), e.g. 268435456 (256 MiB)"
            )
        self._check_accounts()
        if not self.token and not self.allow_open and not self.accounts:
            raise ReceiverConfigError(
                "no webhook token: set WEBHOOKS__TOKEN (or [webhooks] token in .dlt/secrets.toml), "
                "or pass --open to accept unauthenticated requests"
            )
        for name, secret in (
            ("WEBHOOKS__SIGNING_SECRET", self.signing_secret),
            ("WEBHOOKS__PREVIOUS_SIGNING_SECRET", self.previous_signing_secret),
        ):
            if secret:
                try:
                    verifier(secret)
                except ValueError as exc:
                    raise ReceiverConfigError(
                        f"{name} is not a Standard Webhooks secret (whsec_<base64> or plain "
                        f"text): {exc}"
                    ) from None
        self._check_rotation()

    def _check_accounts(self) -> None:
        for name, auth in self.accounts.items():
            variable = f"WEBHOOKS__ACCOUNTS__{name.upper()}__"
            if not ACCOUNT_NAME.fullmatch(name):
                raise ReceiverConfigError(
                    f"webhook account name {name!r}: use lower-case letters, digits and _, "
                    "starting with a letter, at most 32 characters (the account's name)"
                )
            if not auth.token:
                raise ReceiverConfigError(
                    f"account {name} has no webhook token: set {variable}TOKEN (or token in "
                    f"[webhooks.accounts.{name}] of .dlt/secrets.toml)"
                )
            if auth.signing_secret:
                try:
                    verifier(auth.signing_secret)
                except ValueError as exc:
                    raise ReceiverConfigError(
                        f"{variable}SIGNING_SECRET is not a Standard Webhooks secret "
                        f"(whsec_<base64> or plain text): {exc}"
                    ) from None

    def _check_rotation(self) -> None:
        if self.signature_mode not in SIGNATURE_MODES:
            raise ReceiverConfigError(
                f"WEBHOOKS__SIGNATURE_MODE={self.signature_mode!r} is not a signature mode; use "
                "enforce (refuse bad signatures) or report (count them, store the event)"
            )
        if not self.rotation_grace_seconds >= 0:
            raise ReceiverConfigError(
                "WEBHOOKS__ROTATION_GRACE_SECONDS must be a number of seconds, 0 or more "
                f"(got {self.rotation_grace_seconds!r})"
            )
        pairs = (
            ("WEBHOOKS__PREVIOUS_TOKEN", self.previous_token, "WEBHOOKS__TOKEN", self.token),
            ("WEBHOOKS__PREVIOUS_SIGNING_SECRET", self.previous_signing_secret,
             "WEBHOOKS__SIGNING_SECRET", self.signing_secret),
        )  # fmt: skip
        for old_name, old, new_name, new in pairs:
            if old and not new:
                raise ReceiverConfigError(
                    f"{old_name} is set but {new_name} is not: during a rotation set {new_name} "
                    f"to the new value and {old_name} to the one it replaces"
                )
            if old and old == new:
                raise ReceiverConfigError(
                    f"{old_name} equals {new_name}: set {old_name} to the value being replaced, "
                    "or unset it when no rotation is under way"
                )
