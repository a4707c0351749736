"""The sales domain's routes (spec paths, parameters, maxima and 422s):

* ``GET /sales/v1/locations`` (limit <= 1000, default 100; ``locationIds``, ``locationNames``,
  ``isActive`` filters)
* ``GET /sales/v1/daily-sales`` (not paged; ``startDate`` and ``endDate`` required,
  ``YYYY-MM-DD``, inclusive, ``endDate`` on or after ``startDate``; ``locationIds`` optional,
  every location when omitted, "If any ID is invalid, the request fails": a 404 naming it)

Both need scope ``sales_data.read``. Records: :mod:`emulator.domains.sales.data`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import FastAPI, Query
from fastapi.responses import Response

from ...auth import requirement
from ...protocols import Server
from ...responses import envelope, json_response, paged, parse_window
from .data import Sales, daily_sales_in, sales_of

DAILY_SALES_MAX_DAYS = 100_000
"""The spec bounds no daily-sales range; a window past this is surely a mistake."""


def add_routes(app: FastAPI, state: Server) -> None:
    """Register the sales endpoints on ``app`` (see the module docstring)."""

    def records() -> Sales:
        return sales_of(state.dataset)

    @app.get("/sales/v1/locations", dependencies=[requirement(state, "sales_data.read")])
    async def get_locations(
        locationIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
        locationNames: Annotated[list[str] | None, Query()] = None,  # noqa: N803
        isActive: bool | None = None,  # noqa: N803
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        rows = [
            location
            for location in records().locations
            if (not locationIds or location.get("id") in set(locationIds))
            and (not locationNames or location.get("name") in set(locationNames))
            and (isActive is None or location.get("isActive") == isActive)
        ]
        return paged("locations", rows, offset, limit, state.options.paging_total)

    @app.get("/sales/v1/daily-sales", dependencies=[requirement(state, "sales_data.read")])
    async def get_daily_sales(
        startDate: Annotated[str, Query()],  # noqa: N803
        endDate: Annotated[str, Query()],  # noqa: N803
        locationIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
    ) -> Response:
        window = parse_window(startDate, endDate, DAILY_SALES_MAX_DAYS)
        if isinstance(window, Response):
            return window
        known = {location.get("id") for location in records().locations}
        unknown = sorted(set(locationIds or []) - known)
        if unknown:
            return json_response({"detail": f"Location {unknown[0]} not found"}, 404)
        chosen = set(locationIds) if locationIds else None
        return envelope({"dailySales": daily_sales_in(records(), *window, chosen)})
