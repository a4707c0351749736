"""A local stand-in for the Connecteam API, for the demo, the tests and the benchmarks.

Never imported by production code paths (``sources``, ``pipelines``); the CLI imports it only for
its ``emulator`` and ``demo`` commands. The names below are imported on first use, so reading
:mod:`emulator.config` (the demo's sizes, for ``--help``) costs no web framework.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sources.lazy import lazy_attributes

if TYPE_CHECKING:
    from .app import create_app
    from .data import Dataset, EmulatorConfig
    from .server import EmulatorServer
    from .state import ServerOptions

__all__ = ["Dataset", "EmulatorConfig", "EmulatorServer", "ServerOptions", "create_app"]

_HOMES = {
    "create_app": ".app",
    "Dataset": ".data",
    "EmulatorConfig": ".data",
    "EmulatorServer": ".server",
    "ServerOptions": ".state",
}

__getattr__ = lazy_attributes(__name__, _HOMES)
