"""Webhook receivers started in-process on 127.0.0.1, and deliveries posted to them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from emulator.server import BackgroundServer
from receiver import PATH, ReceiverConfig, create_app


def deliver(
    url: str, body: bytes, token: str | None = None, *, timeout: float = 30, **headers: str
) -> httpx.Response:
    """POST ``body`` to the receiver at ``url`` (its webhook path included) as the provider does,
    with ``token`` as ``x-webhook-token`` (none: no token) and ``headers``."""
    if token is not None:
        headers["x-webhook-token"] = token
    return httpx.post(url, content=body, headers=headers, timeout=timeout)


def hook_url(server: BackgroundServer) -> str:
    """The webhook URL of a receiver ``server``: its base URL and :data:`receiver.PATH`."""
    return server.url + PATH


@contextmanager
def receivers(
    folder: Path, token: str, shared_inbox: bool = False
) -> Iterator[Callable[..., BackgroundServer]]:
    """``start(**settings)`` starts a receiver with ``token`` on an SQLite inbox in ``folder`` (a
    new one per receiver, or ``inbox.sqlite3`` for all with ``shared_inbox``), ``settings``
    over those of :class:`receiver.ReceiverConfig`; the server's ``inbox_url`` names its inbox.
    Every receiver started is stopped (its counts written) when the block ends."""
    running: list[BackgroundServer] = []

    def start(**settings: Any) -> BackgroundServer:
        name = "inbox.sqlite3" if shared_inbox else f"inbox{len(running)}.sqlite3"
        options = {"token": token, "inbox_url": f"sqlite:///{folder / name}", **settings}
        server = BackgroundServer(create_app(ReceiverConfig(**options))).start()
        server.inbox_url = options["inbox_url"]  # type: ignore[attr-defined]
        running.append(server)
        return server

    try:
        yield start
    finally:
        for server in running:
            server.stop()
