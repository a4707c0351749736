"""The ``[webhooks]`` configuration, the dlt way: one typed spec resolved at the edges (the
project's :func:`sources.configuration.resolve`, the receiver's ``wfm-sync webhooks serve``).

Each field is found where dlt looks for a setting of section ``webhooks``: the environment
(``WEBHOOKS__<FIELD>``, e.g. ``WEBHOOKS__INBOX_URL``), then ``[webhooks]`` in
``.dlt/secrets.toml`` and ``.dlt/config.toml`` (secret fields only in the first two).
"""

from __future__ import annotations

from typing import Any

from dlt.common.configuration import configspec, resolve_configuration
from dlt.common.configuration.exceptions import (
    ConfigValueCannotBeCoercedException,
    ValueNotSecretException,
)
from dlt.common.configuration.specs import BaseConfiguration
from dlt.common.typing import TSecretStrValue

from inbox.defaults import (
    DEADLINE_SECONDS,
    DEFAULT_INBOX_URL,
    MAX_BODY_BYTES,
    QUARANTINE_MAX_BYTES,
    QUEUE_SIZE,
    ROTATION_GRACE_SECONDS,
)
from inbox.url import InboxURLError, absolute_inbox_url, check_inbox_url

SECTION = "webhooks"


@configspec
class InboxConfiguration(BaseConfiguration):
    """The setting of section ``[webhooks]`` every job reading the inbox needs (the rest are
    the receiver's: :class:`WebhooksConfiguration`).

    Attributes:
        inbox_url: SQLAlchemy URL of the inbox (``WEBHOOKS__INBOX_URL``, secret: a
            PostgreSQL URL holds a password, so it is read from ``.dlt/secrets.toml`` or the
            environment, never ``config.toml``, and dlt's traces never keep it); SQLite by
            default, a ``postgresql://`` URL works unchanged.
    """

    inbox_url: TSecretStrValue = DEFAULT_INBOX_URL


@configspec
class WebhooksConfiguration(InboxConfiguration):
    """The settings of section ``[webhooks]``: :class:`InboxConfiguration`'s and the
    receiver's.

    Attributes:
        token: The shared token senders must present (``WEBHOOKS__TOKEN``, secret); unset or
            empty means none.
        signing_secret: Standard Webhooks secret, ``whsec_<base64>`` or plain text
            (``WEBHOOKS__SIGNING_SECRET``, secret); when set, the receiver requires signatures.
        max_body_bytes: Largest body the receiver accepts, in bytes
            (``WEBHOOKS__MAX_BODY_BYTES``, default 1 MiB).
        previous_token: The token being replaced during a rotation
            (``WEBHOOKS__PREVIOUS_TOKEN``, secret): accepted until the receiver has seen the new
            ``token`` and the previous one has gone unused for ``rotation_grace_seconds``, then
            refused as ``retired previous token``.
        previous_signing_secret: The signing secret being replaced
            (``WEBHOOKS__PREVIOUS_SIGNING_SECRET``, secret), accepted on the same terms.
        signature_mode: ``enforce`` (default: a bad signature is refused with 401) or
            ``report`` (it is counted as ``would-refuse: ...`` and the event stored)
            (``WEBHOOKS__SIGNATURE_MODE``).
        rotation_grace_seconds: Seconds the previous token and secret must have gone unused,
            once the new ones have been seen, before they are refused
            (``WEBHOOKS__ROTATION_GRACE_SECONDS``, default 300).
        quarantine_max_bytes: Most bytes of refused bodies the inbox keeps
            (``WEBHOOKS__QUARANTINE_MAX_BYTES``, default 256 MiB); beyond it the oldest are
            dropped and counted.
        deadline_seconds: Seconds within which the receiver answers a delivery
            (``WEBHOOKS__DEADLINE_SECONDS``, default 10, under the provider's 30); a delivery
            the inbox could not commit by then is answered 503 and not stored.
        queue_size: Deliveries that may wait for the receiver's writer
            (``WEBHOOKS__QUEUE_SIZE``, default 1000); when it is full, 503 at once.
        max_connections: Connections the receiver keeps open at once
            (``WEBHOOKS__MAX_CONNECTIONS``; unset: nine tenths of the open-file limit, which
            the receiver raises to the hard limit); past it, 503 with ``Retry-After``.
    """

    token: TSecretStrValue | None = None
    signing_secret: TSecretStrValue | None = None
    max_body_bytes: int = MAX_BODY_BYTES
    previous_token: TSecretStrValue | None = None
    previous_signing_secret: TSecretStrValue | None = None
    signature_mode: str = "enforce"
    rotation_grace_seconds: float = ROTATION_GRACE_SECONDS
    quarantine_max_bytes: int = QUARANTINE_MAX_BYTES
    deadline_seconds: float = DEADLINE_SECONDS
    queue_size: int = QUEUE_SIZE
    max_connections: int | None = None


def webhooks_configuration() -> WebhooksConfiguration:
    """The ``[webhooks]`` settings as configured now (resolved on every call): the receiver's
    and ``wfm-sync webhooks``' edge.

    Raises:
        dlt.common.configuration.exceptions.ConfigValueCannotBeCoercedException: A value has
            the wrong kind (e.g. ``WEBHOOKS__MAX_BODY_BYTES=lots``).
        InboxURLError: A setting read only as a secret (``inbox_url``: it may hold a
            password) is in ``.dlt/config.toml``; the message says where to move it.
    """
    return _resolved(WebhooksConfiguration())


def _resolved(spec: InboxConfiguration) -> Any:
    try:
        return resolve_configuration(spec, sections=(SECTION,))
    except ValueNotSecretException as exc:
        field = exc.key.rsplit(".", 1)[-1]
        raise InboxURLError(
            f"[{SECTION}] {field} is in {exc.provider_name}, which holds no secrets, and it may "
            f"hold a password: move it to .dlt/secrets.toml or set {SECTION.upper()}__"
            f"{field.upper()}"
        ) from None


def configured_inbox_url() -> str:
    """``WEBHOOKS__INBOX_URL`` / ``[webhooks] inbox_url``, default
    ``sqlite:///data/inbox.sqlite3`` (an empty value counts as unset), a relative SQLite path
    made absolute (:func:`absolute_inbox_url`); not checked for use (:func:`check_inbox_url`).
    Reads only this setting: a receiver setting of the wrong kind does not stop a job.

    Raises:
        InboxURLError: It is in ``.dlt/config.toml``, which holds no secrets.
    """
    return absolute_inbox_url(_resolved(InboxConfiguration()).inbox_url or DEFAULT_INBOX_URL)


def coercion_problem(exc: ConfigValueCannotBeCoercedException) -> str:
    """One line naming the ``WEBHOOKS__<FIELD>`` setting whose value has the wrong kind, what it
    must be and an example (its default); the value is shown only for a number setting (never a
    secret)."""
    name = f"WEBHOOKS__{exc.field_name.upper()}"
    kinds = {int: "a whole number", float: "a number"}
    if exc.hint not in kinds:
        return f"{name} cannot be read as {exc.hint!r}; correct or unset it"
    example = getattr(WebhooksConfiguration, exc.field_name, None)
    shown = f"{example:g}" if isinstance(example, float) else str(example)
    return (
        f"{name}={str(exc.field_value)!r} is not {kinds[exc.hint]}; give one, e.g. {shown} "
        "(the default, also used when it is unset)"
    )


def inbox_url_from_config() -> str:
    """:func:`configured_inbox_url`, checked by :func:`check_inbox_url`: for an edge (a
    command, a test) that opens the configured inbox itself.

    Raises:
        InboxURLError: The URL is not a usable inbox (the message names the setting).
    """
    return check_inbox_url(configured_inbox_url())


ACCOUNTS_SECTIONS = ("webhooks", "accounts")
"""``[webhooks.accounts.<name>]``, ``WEBHOOKS__ACCOUNTS__<NAME>__TOKEN``."""


def webhook_accounts() -> dict[str, tuple[str | None, str | None]]:
    """Each named account's webhook ``(token, signing_secret)``: the tables
    ``[webhooks.accounts.<name>]`` of dlt's TOML files and the variables
    ``WEBHOOKS__ACCOUNTS__<NAME>__TOKEN`` / ``__SIGNING_SECRET``, by account name (lower case);
    a value not set, or empty, is ``None`` (the receiver's configuration says what is
    missing)."""
    import os

    import dlt

    names: set[str] = set()
    for provider in dlt.config.config_providers:
        value, _ = provider.get_value("accounts", dict, None, "webhooks")
        if isinstance(value, dict):
            names |= {str(name) for name, table in value.items() if isinstance(table, dict)}
    prefix = "WEBHOOKS__ACCOUNTS__"
    for variable in os.environ:
        name, separator, _ = variable.removeprefix(prefix).partition("__")
        if variable.startswith(prefix) and separator:
            names.add(name.lower())
    sections = {name: (*ACCOUNTS_SECTIONS, name) for name in sorted(names)}
    return {
        name: (_own_secret("token", where), _own_secret("signing_secret", where))
        for name, where in sections.items()
    }


def _own_secret(field: str, sections: tuple[str, ...]) -> str | None:
    """``field`` as the first dlt provider sets it in exactly ``sections``; ``None`` when none
    does or it is empty."""
    import dlt

    for provider in dlt.config.config_providers:
        value, _ = provider.get_value(field, TSecretStrValue, None, *sections)
        if value:
            return str(value)
    return None
