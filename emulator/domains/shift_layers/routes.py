"""The shift layers domain's routes: shift layers, shift custom fields, the V2 shift listing and
user custom-field labels, as the provider's OpenAPI spec describes them:

* ``GET /scheduler/v1/schedulers/{schedulerId}/shift-layers`` (not paged; ``shiftLayers``),
* ``GET /scheduler/v1/schedulers/{schedulerId}/shift-layers/{layerId}/values`` (limit 1..500;
  ``values``),
* ``GET /scheduler/v1/schedulers/{schedulerId}/custom-fields`` (limit 1..100; ``customFields``),
* ``GET /scheduler/v2/schedulers/{schedulerId}/shifts`` (limit 1..500; required
  ``startTime``/``endTime`` as V1; one row per shift, ``id`` the base shift id, with every
  assigned user in ``assignedUserIds``: the V1 rows of one shift merged),
  all with scope ``schedule.read`` and 404 for an unknown scheduler (or layer);
* ``GET /users/v1/custom-field-categories`` (limit 1..500; ``categories``),
* ``GET /users/v1/custom-fields/{customFieldId}/options`` (limit 1..100; ``options``; 404 for a
  field that is not a dropdown of the account),
  with scope ``users.read``.

The records are :mod:`emulator.domains.shift_layers.data`'s (tidy) or drawn from the spec's
schemas (:mod:`emulator.domains.shift_layers.spec`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Path, Query
from fastapi.responses import Response

from ...auth import requirement
from ...options import ShiftSort, SortOrder
from ...protocols import Server
from ...responses import envelope, json_response, paged
from .data import dropdown_options, shift_settings_of

Limit500 = Annotated[int, Query(ge=1, le=500)]
Limit100 = Annotated[int, Query(ge=1, le=100)]
Offset = Annotated[int, Query(ge=0)]


def _no_scheduler(state: Server, scheduler_id: int) -> Response | None:
    if scheduler_id in state.dataset.schedulers:
        return None
    return json_response({"detail": f"Scheduler {scheduler_id} not found"}, 404)


def v2_rows(v1_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The V2 rows of V1 ``v1_rows``: one per base shift id, in the order of its first slot,
    ``assignedUserIds`` the union of its slots' (in slot order)."""
    merged: dict[str, dict[str, Any]] = {}
    for row in v1_rows:
        base = row["id"].split(":")[0]
        if base not in merged:
            merged[base] = {**row, "id": base, "assignedUserIds": []}
        users = merged[base]["assignedUserIds"]
        users += [u for u in row.get("assignedUserIds") or [] if u not in users]
    return list(merged.values())


def add_routes(app: FastAPI, state: Server) -> None:
    """Register the endpoints of the module docstring on ``app``."""
    schedule = [requirement(state, "schedule.read")]
    base = "/scheduler/v1/schedulers/{schedulerId}"

    @app.get(f"{base}/shift-layers", dependencies=schedule)
    async def get_shift_layers(schedulerId: Annotated[int, Path()]) -> Response:  # noqa: N803
        missing = _no_scheduler(state, schedulerId)
        layers = shift_settings_of(state.dataset).layers.get(schedulerId, [])
        return missing or envelope({"shiftLayers": layers})

    @app.get(f"{base}/shift-layers/{{layerId}}/values", dependencies=schedule)
    async def get_shift_layer_values(
        schedulerId: Annotated[int, Path()],  # noqa: N803
        layerId: Annotated[str, Path()],  # noqa: N803
        limit: Limit500 = 10,
        offset: Offset = 0,
    ) -> Response:
        settings = shift_settings_of(state.dataset)
        missing = _no_scheduler(state, schedulerId)
        if missing is None and layerId not in {x["id"] for x in settings.layers[schedulerId]}:
            missing = json_response({"detail": f"Shift layer {layerId} not found"}, 404)
        values = settings.values.get(layerId, [])
        return missing or paged("values", values, offset, limit, state.options.paging_total)

    @app.get(f"{base}/custom-fields", dependencies=schedule)
    async def get_shift_custom_fields(
        schedulerId: Annotated[int, Path()],  # noqa: N803
        limit: Limit100 = 10,
        offset: Offset = 0,
    ) -> Response:
        fields = shift_settings_of(state.dataset).custom_fields.get(schedulerId, [])
        total = state.options.paging_total
        return _no_scheduler(state, schedulerId) or paged(
            "customFields", fields, offset, limit, total
        )

    @app.get("/scheduler/v2/schedulers/{schedulerId}/shifts", dependencies=schedule)
    async def get_shifts_v2(
        schedulerId: Annotated[int, Path()],  # noqa: N803
        startTime: Annotated[int, Query()],  # noqa: N803
        endTime: Annotated[int, Query()],  # noqa: N803
        sort: ShiftSort = ShiftSort.created_at,
        order: SortOrder = SortOrder.asc,
        limit: Limit500 = 10,
        offset: Offset = 0,
    ) -> Response:
        missing = _no_scheduler(state, schedulerId)
        if missing is not None:
            return missing
        rows = v2_rows(state.shift_listing(schedulerId, startTime, endTime, sort, order))
        return paged("shifts", rows, offset, limit, state.options.paging_total)

    _add_user_field_routes(app, state)


def _add_user_field_routes(app: FastAPI, state: Server) -> None:
    users = [requirement(state, "users.read")]

    @app.get("/users/v1/custom-field-categories", dependencies=users)
    async def get_custom_field_categories(limit: Limit500 = 10, offset: Offset = 0) -> Response:
        categories = shift_settings_of(state.dataset).categories
        return paged("categories", categories, offset, limit, state.options.paging_total)

    @app.get("/users/v1/custom-fields/{customFieldId}/options", dependencies=users)
    async def get_custom_field_options(
        customFieldId: Annotated[int, Path()],  # noqa: N803
        limit: Limit100 = 10,
        offset: Offset = 0,
    ) -> Response:
        fields = state.dataset.operations.custom_fields
        field = next((f for f in fields if f.get("id") == customFieldId), None)
        if field is None or field.get("type") != "dropdown":
            detail = f"Custom field {customFieldId} is not a dropdown field of the account"
            return json_response({"detail": detail}, 404)
        options = dropdown_options(field, shift_settings_of(state.dataset).options_count)
        return paged("options", options, offset, limit, state.options.paging_total)
