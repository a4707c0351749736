"""Run the emulator in the foreground (the CLI) or on a background thread (demo, tests,
benchmarks)."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Any, Self

import httpx
import uvicorn

from .app import create_app
from .data import EmulatorConfig
from .options import ServerOptions
from .state import EmulatorState

START_TIMEOUT = 120.0
"""Seconds a server may take to start (its app's startup included) before :meth:`start` gives
up: generous, so a busy machine slows the start down without failing it."""


def bind(host: str = "127.0.0.1", port: int = 8765) -> socket.socket:
    """A socket bound to ``host:port`` for :func:`serve`, so a taken port is known before the
    emulator says it listens.

    Raises:
        OSError: The address cannot be bound (``errno`` EADDRINUSE: another process holds the
            port; EADDRNOTAVAIL: no such interface here; EACCES: a privileged port).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def serve(config: EmulatorConfig, options: ServerOptions, sock: socket.socket) -> None:
    """Serve the emulator on ``sock`` (from :func:`bind`) until interrupted (blocking)."""
    server = uvicorn.Server(uvicorn.Config(create_app(config, options), log_level="warning"))
    server.run(sockets=[sock])


class BackgroundServer:
    """Any ASGI app as a real HTTP server on a free loopback port, on a daemon thread.

    Use as a context manager; ``url`` is its base URL.

    Args:
        app: The application.
        host: Interface to bind (loopback by default).
    """

    def __init__(self, app: Any, host: str = "127.0.0.1") -> None:
        self.app = app
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, 0))
        self.host, self.port = self._socket.getsockname()[:2]
        self.url = f"http://{self.host}:{self.port}"
        self._server = uvicorn.Server(
            uvicorn.Config(app, log_level="error", lifespan="on", timeout_keep_alive=30)
        )
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True
        )

    def start(self) -> Self:
        """Start serving and wait until the server answers.

        Raises:
            RuntimeError: The server stopped while starting, or did not start within
                :data:`START_TIMEOUT` seconds (the message names its URL).
        """
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError(f"the server on {self.url} stopped while starting")
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the server on {self.url} did not start within {START_TIMEOUT} s"
                )
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        """Stop serving and wait for the thread to end."""
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class EmulatorServer(BackgroundServer):
    """The emulator as a real HTTP server on a free loopback port, on a daemon thread.

    ``url`` is the base URL to give the source, ``state`` the live
    :class:`~emulator.state.EmulatorState` (data, counters).

    Args:
        config: Size and seed of the emulated account.
        options: Credentials, rate limits, latency, faults.
        host: Interface to bind (loopback by default).
    """

    def __init__(
        self,
        config: EmulatorConfig | None = None,
        options: ServerOptions | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        super().__init__(create_app(config, options), host)
        self.state: EmulatorState = self.app.state.emulator

    def control(self, action: str, body: dict[str, object] | None = None) -> dict[str, object]:
        """POST to a control endpoint (``mutate``, ``reset``, ``stats/reset``); return its JSON."""
        response = httpx.post(f"{self.url}/_emulator/{action}", json=body or {}, timeout=120)
        response.raise_for_status()
        result: dict[str, object] = response.json()
        return result

    def stats(self) -> dict[str, object]:
        """Request counters since the last reset: ``{"requests": {path: n}, "total": n, ...}``."""
        result: dict[str, object] = httpx.get(f"{self.url}/_emulator/stats", timeout=30).json()
        return result
