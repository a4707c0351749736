"""The emulator's HTTP application: a local stand-in for the Connecteam API, assembled from its
parts.

* :mod:`emulator.auth`: ``POST /oauth/v1/token`` and the credential check of every API route;
* :mod:`emulator.listings`: users, forms, schedulers, shifts, user documents;
* :mod:`emulator.operations`: time clocks, time activities, timesheets, form submissions, jobs,
  time off, tasks, custom fields;
* :mod:`emulator.domains`: the stream domains, each registering its own routes (pay and
  leave, sales, smart groups, shift layers, and documents: attachments and document entries,
  the write path);
* :mod:`emulator.subscriptions`: the webhook settings API (``/settings/v1/webhooks``), whose
  subscribers :mod:`emulator.delivery` sends the events of changes to;
* :mod:`emulator.control`: the ``/_emulator/`` control endpoints;
* :mod:`emulator.middleware`: rate limits, latency, faults and counters around every API request.

Routes build their answers with :mod:`emulator.responses` and hold everything in one
:class:`~emulator.state.EmulatorState`.
"""

from __future__ import annotations

from fastapi import FastAPI

from .auth import add_token_route
from .control import add_control_routes
from .data import EmulatorConfig
from .domains import DOMAINS
from .listings import add_listing_routes
from .middleware import ProviderBehaviour
from .operations import add_operations_routes
from .options import ServerOptions
from .state import EmulatorState
from .subscriptions import add_subscription_routes

__all__ = ["ServerOptions", "create_app"]


def create_app(
    config: EmulatorConfig | None = None, options: ServerOptions | None = None
) -> FastAPI:
    """Build the emulator application.

    Args:
        config: Size and seed of the emulated account.
        options: Credentials, rate limits, latency, faults.

    Returns:
        A FastAPI app; its state is at ``app.state.emulator`` (:class:`EmulatorState`), the
        document write path's test hooks at ``app.state.documents``.
    """
    state = EmulatorState(config or EmulatorConfig(), options or ServerOptions())
    app = FastAPI(title="Connecteam API emulator", docs_url=None, redoc_url=None)
    app.state.emulator = state
    add_token_route(app, state)
    add_listing_routes(app, state)
    add_control_routes(app, state)
    add_operations_routes(app, state)
    for domain in DOMAINS:
        domain.add_routes(app, state)
    add_subscription_routes(app, state)
    app.add_middleware(ProviderBehaviour, state=state)
    return app
