"""The defaults of the ``[webhooks]`` settings, shared by the receiver and the dlt configuration
that reads them (:class:`sources.webhooks.config.WebhooksConfiguration`)."""

from __future__ import annotations

DEFAULT_INBOX_URL = "sqlite:///data/inbox.sqlite3"
"""The inbox when ``WEBHOOKS__INBOX_URL`` is unset (relative to the project's home)."""
MAX_BODY_BYTES = 1024 * 1024
"""The largest body the receiver accepts, by default (1 MiB)."""
SIGNATURE_MODES = ("enforce", "report")
"""What the receiver may do with a bad signature: refuse it (401), or count it and store."""
ROTATION_GRACE_SECONDS = 300.0
"""Default seconds the old token must go unused, once the new one has been seen, before it is
refused: the provider retries a delivery 3 times, 60 s apart, so a delivery first sent with the
old token can arrive up to 180 s later."""
DEADLINE_SECONDS = 10.0
"""How long the receiver may take to answer a delivery, by default (the provider waits 30 s)."""
QUEUE_SIZE = 1000
"""Deliveries that may wait for the receiver's writer, by default."""
QUARANTINE_MAX_BYTES = 256 * 1024 * 1024
"""Bytes of refused bodies the inbox keeps, by default (256 MiB)."""
