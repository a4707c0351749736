"""Shift settings per scheduler and the labels of user custom fields:

* ``shift_layers`` (``GET /scheduler/v1/schedulers/{schedulerId}/shift-layers``), merged on
  ``shift_layer_key`` = scheduler:layer;
* ``shift_layer_values`` (``GET .../shift-layers/{layerId}/values``), merged on
  ``shift_layer_value_key`` = scheduler:layer:value;
* ``shift_custom_fields`` (``GET /scheduler/v1/schedulers/{schedulerId}/custom-fields``), merged
  on ``shift_custom_field_key`` = scheduler:field;
* ``user_custom_field_options`` (``GET /users/v1/custom-fields/{customFieldId}/options``, for
  each dropdown field), merged on ``user_custom_field_option_key`` = field:option.

Each scheduler's layers are listed once per run and give both ``shift_layers`` and the parents of
``shift_layer_values``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from dlt.sources import DltResource

from ..arrow_rows import BIGINT, BOOL, JSON
from ..client import ConnecteamClient
from ..errors import ParentNotFoundError
from ..registry import STREAMS
from .children import Parent, child_listing
from .common import DELETION_MARK, Listing
from .run import Builders, Run

LAYER_COLUMNS = {"scheduler_id": "bigint!", **DELETION_MARK}
CUSTOM_FIELD_COLUMNS = {"scheduler_id": "bigint!", "dropdown_options": JSON, **DELETION_MARK}
OPTION_COLUMNS = {"custom_field_id": "bigint!", "id": BIGINT, "is_disabled": BOOL,
                  "is_option_deleted": BOOL, **DELETION_MARK}  # fmt: skip

LayersBySchedulers = Callable[[], dict[int, list[dict[str, Any]] | ParentNotFoundError]]
"""Each listed scheduler's layers (``SchedulerShiftLayerOutput``), or the 404 it answered."""


def layer_row(scheduler_id: int, record: dict[str, Any]) -> dict[str, Any]:
    """One shift layer (``{id, title}``) of scheduler ``scheduler_id``."""
    return {"shift_layer_key": f"{scheduler_id}:{record['id']}", "scheduler_id": scheduler_id,
            "id": str(record["id"]), "title": record.get("title")}  # fmt: skip


def layer_value_row(scheduler_id: int, layer_id: str, record: dict[str, Any]) -> dict[str, Any]:
    """One value (``{id, displayName}``) of layer ``layer_id`` of scheduler ``scheduler_id``."""
    return {"shift_layer_value_key": f"{scheduler_id}:{layer_id}:{record['id']}",
            "scheduler_id": scheduler_id, "layer_id": layer_id, "id": str(record["id"]),
            "display_name": record.get("displayName")}  # fmt: skip


def custom_field_row(scheduler_id: int, record: dict[str, Any]) -> dict[str, Any]:
    """One shift custom field (``{id, name, type, isMultiSelect?, dropdownOptions?}``)."""
    return {"shift_custom_field_key": f"{scheduler_id}:{record['id']}",
            "scheduler_id": scheduler_id, "id": str(record["id"]), "name": record.get("name"),
            "type": record.get("type"), "is_multi_select": record.get("isMultiSelect"),
            "dropdown_options": record.get("dropdownOptions") or []}  # fmt: skip


def option_row(field_id: int, record: dict[str, Any]) -> dict[str, Any]:
    """One option (``{id, value, isDisabled, isDeleted}``) of user dropdown field ``field_id``;
    the provider's ``isDeleted`` is ``is_option_deleted`` (``is_deleted`` is the sync's mark)."""
    return {"user_custom_field_option_key": f"{field_id}:{record['id']}",
            "custom_field_id": field_id, "id": record["id"], "value": record.get("value"),
            "is_disabled": record.get("isDisabled"),
            "is_option_deleted": record.get("isDeleted")}  # fmt: skip


def layers_by_scheduler(client: ConnecteamClient, scheduler_list: Listing) -> LayersBySchedulers:
    """How to fetch each listed scheduler's shift layers (:func:`_layers` runs it once per run
    for ``shift_layers`` and ``shift_layer_values``)."""

    def fetch() -> dict[int, list[dict[str, Any]] | ParentNotFoundError]:
        out: dict[int, list[dict[str, Any]] | ParentNotFoundError] = {}
        for scheduler in scheduler_list()[0]:
            sid = int(scheduler["schedulerId"])
            path = {"schedulerId": sid}
            try:
                out[sid] = [r for page in client.paginate(STREAMS["shift_layers"], None, path)
                            for r in page]  # fmt: skip
            except ParentNotFoundError as exc:
                out[sid] = exc
        return out

    return fetch


def shift_layers(client: ConnecteamClient, layers: LayersBySchedulers) -> DltResource:
    """``shift_layers``: every scheduler's layers, only changed ones loaded; one no longer
    listed is marked deleted."""

    def parents() -> list[Parent]:
        return [Parent({"schedulerId": sid}, f"{sid}:", partial(layer_row, sid))
                for sid in layers()]  # fmt: skip

    def fetch(parent: Parent) -> tuple[list[dict[str, Any]], bool | None]:
        listed = layers()[parent.path_params["schedulerId"]]
        if isinstance(listed, ParentNotFoundError):
            raise listed
        return listed, True

    return child_listing(client, "shift_layers", "shift_layer_key", LAYER_COLUMNS, parents, fetch)


def shift_layer_values(client: ConnecteamClient, layers: LayersBySchedulers) -> DltResource:
    """``shift_layer_values``: every listed layer's values (paged, 500 at most a page)."""

    def parents() -> list[Parent]:
        return [
            Parent(
                {"schedulerId": sid, "layerId": layer["id"]},
                f"{sid}:{layer['id']}:",
                partial(layer_value_row, sid, str(layer["id"])),
            )
            for sid, listed in layers().items()
            if not isinstance(listed, ParentNotFoundError)
            for layer in listed
        ]

    key = "shift_layer_value_key"
    return child_listing(client, "shift_layer_values", key, LAYER_COLUMNS, parents)


def shift_custom_fields(client: ConnecteamClient, scheduler_list: Listing) -> DltResource:
    """``shift_custom_fields``: every scheduler's shift custom fields (paged, 100 a page)."""

    def parents() -> list[Parent]:
        sids = [int(s["schedulerId"]) for s in scheduler_list()[0]]
        return [Parent({"schedulerId": sid}, f"{sid}:", partial(custom_field_row, sid))
                for sid in sids]  # fmt: skip

    key = "shift_custom_field_key"
    return child_listing(client, "shift_custom_fields", key, CUSTOM_FIELD_COLUMNS, parents)


def user_custom_field_options(client: ConnecteamClient, definitions: Listing) -> DltResource:
    """``user_custom_field_options``: the options of every dropdown user custom field (paged,
    100 a page) that the default listing returns (the spec's ``isDeleted`` filter, default
    false, asks for deleted options only; a deleted option's label stays in the definition's
    ``dropdown_options``, which the models read too)."""

    def parents() -> list[Parent]:
        ids = [int(f["id"]) for f in definitions()[0] if f.get("type") == "dropdown"]
        return [Parent({"customFieldId": fid}, f"{fid}:", partial(option_row, fid))
                for fid in ids]  # fmt: skip

    key = "user_custom_field_option_key"
    return child_listing(client, "user_custom_field_options", key, OPTION_COLUMNS, parents)


def _layers(run: Run) -> LayersBySchedulers:
    """Each scheduler's layers, listed once per run for both layer streams."""
    return run.shared("layers_by_scheduler", layers_by_scheduler(run.client, run.schedulers))


RESOURCES: Builders = {
    "user_custom_field_options": lambda run: user_custom_field_options(run.client, run.definitions),
    "shift_layers": lambda run: shift_layers(run.client, _layers(run)),
    "shift_layer_values": lambda run: shift_layer_values(run.client, _layers(run)),
    "shift_custom_fields": lambda run: shift_custom_fields(run.client, run.schedulers),
}
"""This domain's streams and how each one's resource is built for a run."""
