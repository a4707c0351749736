"""The documents domain: the write path of file attachments and document entries (routes and
their control endpoints: :mod:`.routes`; it holds no records of its own)."""

from __future__ import annotations

from ..domain import Domain
from .routes import add_routes

DOMAIN = Domain(name="documents", order=0, add_routes=add_routes)
