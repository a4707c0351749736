"""The ``[webhooks]`` configuration, the dlt way: one typed spec read by the receiver, the fold and
the ``webhooks`` source.

Each field is found where dlt looks for a setting of section ``webhooks``: the environment
(``WEBHOOKS__<FIELD>``, e.g. ``WEBHOOKS__INBOX_URL``), then ``[webhooks]`` in
``.dlt/secrets.toml`` and ``.dlt/config.toml`` (secret fields only in the first two).
"""

from __future__ import annotations

from dlt.common.configuration import configspec, resolve_configuration
from dlt.common.configuration.specs import BaseConfiguration
from dlt.common.typing import TSecretStrValue

SECTION = "webhooks"
DEFAULT_INBOX_URL = "sqlite:///data/inbox.sqlite3"
MAX_BODY_BYTES = 1024 * 1024


@configspec
class WebhooksConfiguration(BaseConfiguration):
    """The settings of section ``[webhooks]``.

    Attributes:
        inbox_url: SQLAlchemy URL of the inbox (``WEBHOOKS__INBOX_URL``); SQLite by default, a
            ``postgresql://`` URL works unchanged.
        token: The shared token senders must present (``WEBHOOKS__TOKEN``, secret); unset or
            empty means none.
        signing_secret: Standard Webhooks secret, ``whsec_<base64>`` or plain text
            (``WEBHOOKS__SIGNING_SECRET``, secret); when set, the receiver requires signatures.
        max_body_bytes: Largest body the receiver accepts, in bytes
            (``WEBHOOKS__MAX_BODY_BYTES``, default 1 MiB).
    """

    inbox_url: str = DEFAULT_INBOX_URL
    token: TSecretStrValue | None = None
    signing_secret: TSecretStrValue | None = None
    max_body_bytes: int = MAX_BODY_BYTES


def webhooks_configuration() -> WebhooksConfiguration:
    """The ``[webhooks]`` settings as configured now (resolved on every call).

    Raises:
        dlt.common.configuration.exceptions.ConfigValueCannotBeCoercedException: A value has
            the wrong kind (e.g. ``WEBHOOKS__MAX_BODY_BYTES=lots``).
    """
    return resolve_configuration(WebhooksConfiguration(), sections=(SECTION,))


def inbox_url_from_config() -> str:
    """``WEBHOOKS__INBOX_URL`` / ``[webhooks] inbox_url``, default
    ``sqlite:///data/inbox.sqlite3`` (an empty value counts as unset)."""
    return webhooks_configuration().inbox_url or DEFAULT_INBOX_URL
