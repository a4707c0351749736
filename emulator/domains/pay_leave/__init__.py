"""The pay and leave domain: pay rates, pay rule policies, time-off balances and scheduler
unavailabilities (records: :mod:`.data`, routes: :mod:`.routes`, spec data: :mod:`.spec`)."""

from __future__ import annotations

from ..domain import Domain
from .data import NAME, listed, tidy
from .routes import add_routes
from .spec import spec

DOMAIN = Domain(name=NAME, order=1, add_routes=add_routes, tidy=tidy, spec=spec, listed=listed)
