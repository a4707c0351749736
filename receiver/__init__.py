"""The webhook receiver: the HTTP server the provider posts its webhook events to.

``wfm-sync webhooks serve`` runs it (uvicorn); each event is committed to the inbox
(:class:`inbox.Inbox`) before the 200, and the fold job (``wfm-sync webhooks fold``)
later loads the inbox into the warehouse. The receiver never opens the warehouse.

Modules: :mod:`~receiver.app` (the FastAPI application and its answers), :mod:`~receiver.auth`
(tokens, signatures, rotation, refusals counted), :mod:`~receiver.writer` (the group-commit
writer thread, within each request's deadline), :mod:`~receiver.signature` (Standard Webhooks
verification by the ``standardwebhooks`` package), :mod:`~receiver.config` (token, signing
secret, inbox, body limit, deadline, queue size, quarantine budget, rotation; the ``serve``
command reads them from the ``[webhooks]`` configuration:
:func:`flows.cli.receiving.receiver_config_from_dlt`). It imports the inbox (:mod:`inbox`), never
dlt, DuckDB or Arrow.
"""

from __future__ import annotations

from .app import PATH, create_app
from .config import ReceiverConfig, ReceiverConfigError
from .writer import GroupCommitWriter

__all__ = [
    "PATH",
    "GroupCommitWriter",
    "ReceiverConfig",
    "ReceiverConfigError",
    "create_app",
]
