"""A local stand-in for the Connecteam API, for the demo, the tests and the benchmarks.

Never imported by production code paths (``sources``, ``pipelines``); the CLI imports it only for
its ``emulator`` and ``demo`` commands. The names below are imported on first use, so reading
:mod:`emulator.config` (the demo's sizes, for ``--help``) costs no web framework.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    """``emulator.<name>`` for the names of :data:`__all__`, imported when first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'emulator' has no attribute {name!r}")
    return getattr(importlib.import_module(home, __name__), name)
