"""Package attributes imported on first use (PEP 562), so importing a package for one light
module does not load its heavy ones."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_attributes(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` that imports each name of ``homes`` (name ->
    relative module, e.g. ``{"run_sync": ".sync"}``) from its module when first asked for.

    Raises (from the returned function):
        AttributeError: ``name`` is not one of ``homes``.
    """

    def attribute(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(home, package), name)

    return attribute
