"""A local stand-in for the Connecteam API, for the demo, the tests and the benchmarks.

Never imported by production code paths (``sources``, ``pipelines``); the CLI imports it only for
its ``emulator`` and ``demo`` commands.
"""

from .app import create_app
from .data import Dataset, EmulatorConfig
from .server import EmulatorServer
from .state import ServerOptions

__all__ = ["Dataset", "EmulatorConfig", "EmulatorServer", "ServerOptions", "create_app"]
