"""A local stand-in for the Connecteam API, for the demo, the tests and the benchmarks.

Never imported by production code paths (``sources``, ``pipelines``); the CLI imports it only for
its ``emulator`` and ``demo`` commands. It imports nothing of the product either (an import
contract in ``pyproject.toml``): what it serves and sends comes from the provider's documents
(its webhook events: :mod:`emulator.spec_webhooks`), so where the product misreads them a test
can tell. Its stream domains are one package each under :mod:`emulator.domains`. The names below
are imported on first use, so reading :mod:`emulator.config` (the demo's sizes, for ``--help``)
costs no web framework.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app
    from .data import Dataset, EmulatorConfig
    from .options import ServerOptions
    from .server import EmulatorServer

__all__ = ["Dataset", "EmulatorConfig", "EmulatorServer", "ServerOptions", "create_app"]

_HOMES = {
    "create_app": ".app",
    "Dataset": ".data",
    "EmulatorConfig": ".data",
    "EmulatorServer": ".server",
    "ServerOptions": ".options",
}


def __getattr__(name: str) -> Any:
    """The names of :data:`__all__`, each imported from its module on first use (PEP 562).

    Raises:
        AttributeError: ``name`` is not one of them.
    """
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home, __name__), name)
