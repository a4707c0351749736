"""The shift layers domain: shift layers and their values, shift custom fields, the V2 shift
listing and user custom-field labels (records: :mod:`.data`, routes: :mod:`.routes`, spec data:
:mod:`.spec`)."""

from __future__ import annotations

from ..domain import Domain
from .data import NAME, listed, tidy
from .routes import add_routes
from .spec import spec

DOMAIN = Domain(name=NAME, order=4, add_routes=add_routes, tidy=tidy, spec=spec, listed=listed)
