"""The emulator's stream domains, each one package ``emulator/domains/<name>/`` with its routes
(``routes.py``), its tidy records (``data.py``) and its spec data mode (``spec.py``), exporting
one :class:`~emulator.domains.domain.Domain` as ``DOMAIN``.

:data:`DOMAINS` is every subpackage's ``DOMAIN``, found by listing this package (a new domain is
a new subpackage, nothing else), sorted by :attr:`Domain.order
<emulator.domains.domain.Domain.order>` then name. :func:`emulator.app.create_app` registers
their routes, :meth:`emulator.data.Dataset.generate` makes their tidy records and
:func:`emulator.spec_account.spec_account` draws their spec records, each looping over it.
"""

from __future__ import annotations

import importlib
import pkgutil

from .domain import Domain

__all__ = ["DOMAINS", "Domain"]


def _discover() -> tuple[Domain, ...]:
    """The ``DOMAIN`` of every subpackage, by ``(order, name)``.

    Raises:
        TypeError: A subpackage exports no :class:`Domain` as ``DOMAIN``.
        ValueError: A domain's ``name`` is not its package's name.
    """
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        domain = getattr(importlib.import_module(f"{__name__}.{info.name}"), "DOMAIN", None)
        if not isinstance(domain, Domain):
            raise TypeError(f"emulator.domains.{info.name} exports no Domain as DOMAIN")
        if domain.name != info.name:
            raise ValueError(f"emulator.domains.{info.name}: DOMAIN.name is {domain.name!r}")
        found.append(domain)
    return tuple(sorted(found, key=lambda d: (d.order, d.name)))


DOMAINS = _discover()
"""Every domain, by ``(order, name)``."""
