"""The groups domain: smart groups and their segments (records: :mod:`.data`, routes:
:mod:`.routes`, spec data: :mod:`.spec`)."""

from __future__ import annotations

from ..domain import Domain
from .data import NAME, listed, tidy
from .routes import add_routes
from .spec import spec

DOMAIN = Domain(name=NAME, order=3, add_routes=add_routes, tidy=tidy, spec=spec, listed=listed)
