"""The shift layers domain's records (:class:`ShiftSettings`: shift layers, shift custom fields
and user custom-field labels, served by :mod:`emulator.domains.shift_layers.routes`) and the
tidy account's (:func:`tidy`); the tidy shifts' layer and custom-field values
(:func:`shift_details`, :func:`shift_custom_values`, which :mod:`emulator.account_data` sets).

Every scheduler has the same two shift layers (``SchedulerShiftLayerOutput``): *Position*, whose
values are the shift titles (:data:`~emulator.vocabulary.SHIFT_TITLES`), and *Location*, whose
first values are the sales locations' names (Downtown, Harbour, Airport, Old Town) and, beyond
four, ``Location <k>``. Each shift carries both layers in ``shiftDetails.shiftLayers``
(``ShiftLayerOutput``: ``{id, title, value: {id, displayName}}``): its title's position and a
location chosen from its base id (a CRC, so no random draw moves the rest of the account).

Every scheduler has ``shift_custom_fields`` shift custom fields
(``DropdownShiftCustomFieldSettingsResponse`` / ``ShiftCustomFieldSettingsResponse``): the
dropdown *Dress code* (options Standard, Formal, Hi-vis), the text field *Handover note*, then
text fields ``Field <k>``; a shift's ``customFields`` (``CustomFieldResponseV2``) holds a Dress
code value. The users' custom fields get ``custom_field_categories`` categories
(``CustomFieldCategory``: Employment, Contact, then ``Category <k>``).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

from ...protocols import Account
from ...vocabulary import SHIFT_TITLES
from ..domain import records_of

NAME = "shift_layers"
POSITION_LAYER = "layer-position"
LOCATION_LAYER = "layer-location"
LOCATION_VALUES = ["Downtown", "Harbour", "Airport", "Old Town"]
"""The Location layer's first values: the tidy account's sales locations, named alike."""
DRESS_CODE_FIELD = 1
DRESS_CODES = [(1, "Standard"), (2, "Formal"), (3, "Hi-vis")]
CATEGORY_NAMES = ["Employment", "Contact"]


@dataclass
class ShiftSettings:
    """One account's shift layers and custom-field labels, as the endpoints list them.

    Attributes:
        layers: Per scheduler id, its layers ``{id, title}``.
        values: Per layer id, its values ``{id, displayName}`` (the same in every scheduler).
        custom_fields: Per scheduler id, its shift custom fields.
        categories: The user custom-field categories ``{id, name}``.
        options_count: Options the users' dropdown fields list (``None``: their own options).
    """

    layers: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    values: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    custom_fields: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    categories: list[dict[str, Any]] = field(default_factory=list)
    options_count: int | None = None


def shift_settings_of(account: Account) -> ShiftSettings:
    """The account's shift settings (see :func:`~emulator.domains.domain.records_of`)."""
    return records_of(account, NAME, ShiftSettings)


def position_value(title: str) -> dict[str, str]:
    """The Position layer's value for a shift titled ``title``."""
    index = SHIFT_TITLES.index(title) if title in SHIFT_TITLES else len(SHIFT_TITLES)
    return {"id": f"position-{index + 1}", "displayName": title}


def location_value(k: int) -> dict[str, str]:
    """The Location layer's ``k``-th value (0-based)."""
    name = LOCATION_VALUES[k] if k < len(LOCATION_VALUES) else f"Location {k + 1}"
    return {"id": f"location-{k + 1}", "displayName": name}


def shift_details(base_id: str, title: str) -> dict[str, Any]:
    """A shift's ``shiftDetails``: its Position (from ``title``) and Location (from
    ``base_id``) layer values."""
    location = location_value(zlib.crc32(base_id.encode()) % len(LOCATION_VALUES))
    return {
        "shiftLayers": [
            {"id": POSITION_LAYER, "title": "Position", "value": position_value(title)},
            {"id": LOCATION_LAYER, "title": "Location", "value": location},
        ],
        "shiftSource": None,
    }


def shift_custom_values(base_id: str) -> list[dict[str, Any]]:
    """A shift's ``customFields``: its Dress code (from ``base_id``)."""
    option_id, value = DRESS_CODES[zlib.crc32(base_id.encode()[::-1]) % len(DRESS_CODES)]
    return [{"customFieldId": DRESS_CODE_FIELD, "name": "Dress code", "type": "dropdown",
             "value": [{"id": option_id, "value": value}]}]  # fmt: skip


def shift_custom_field(k: int) -> dict[str, Any]:
    """A scheduler's ``k``-th shift custom field (0-based)."""
    if k == 0:
        options = [{"id": i, "value": v, "isDeleted": False} for i, v in DRESS_CODES]
        return {"id": str(DRESS_CODE_FIELD), "name": "Dress code", "type": "dropdown",
                "isMultiSelect": False, "dropdownOptions": options}  # fmt: skip
    name = "Handover note" if k == 1 else f"Field {k + 1}"
    return {"id": str(DRESS_CODE_FIELD + k), "name": name, "type": "str"}


def tidy_shift_settings(
    scheduler_ids: list[int], location_values: int, custom_fields: int, categories: int,
    options: int | None,
) -> ShiftSettings:  # fmt: skip
    """The tidy account's settings over its schedulers (see the module docstring)."""
    out = ShiftSettings(options_count=options)
    positions = [position_value(t) for t in SHIFT_TITLES]
    out.values = {POSITION_LAYER: positions,
                  LOCATION_LAYER: [location_value(k) for k in range(location_values)]}  # fmt: skip
    for scheduler in scheduler_ids:
        out.layers[scheduler] = [{"id": POSITION_LAYER, "title": "Position"},
                                 {"id": LOCATION_LAYER, "title": "Location"}]  # fmt: skip
        out.custom_fields[scheduler] = [shift_custom_field(k) for k in range(custom_fields)]
    out.categories = [
        {"id": k + 1, "name": CATEGORY_NAMES[k] if k < len(CATEGORY_NAMES) else f"Category {k + 1}"}
        for k in range(categories)
    ]
    return out


def listed(account: Account) -> dict[str, list[dict[str, Any]]]:
    """Every layer and custom field (with its ``schedulerId``), layer value (with its
    ``schedulerId`` and ``layerId``), category, and option of a dropdown user custom field
    (with its ``customFieldId``); see :attr:`~emulator.domains.domain.Domain.listed`."""
    found = shift_settings_of(account)
    dropdowns = [f for f in account.operations.custom_fields if f.get("type") == "dropdown"]
    return {
        "shift_layers": [
            {"schedulerId": sid, **layer} for sid, rows in found.layers.items() for layer in rows
        ],
        "shift_layer_values": [
            {"schedulerId": sid, "layerId": layer["id"], **value}
            for sid, rows in found.layers.items()
            for layer in rows
            for value in found.values[layer["id"]]
        ],
        "shift_custom_fields": [
            {"schedulerId": sid, **row} for sid, rows in found.custom_fields.items() for row in rows
        ],
        "user_custom_field_categories": found.categories,
        "user_custom_field_options": [
            {"customFieldId": f["id"], **option}
            for f in dropdowns
            for option in dropdown_options(f, found.options_count)
        ],
    }


def tidy(account: Account, anchor: int) -> ShiftSettings:
    """The tidy account's settings over its schedulers, sized by its
    :class:`~emulator.config.OperationsConfig` (the same for every ``anchor``)."""
    sizes = account.config.operations
    return tidy_shift_settings(
        list(account.schedulers), sizes.shift_layer_values, sizes.shift_custom_fields,
        sizes.custom_field_categories, sizes.dropdown_options,
    )  # fmt: skip


def dropdown_options(definition: dict[str, Any], count: int | None) -> list[dict[str, Any]]:
    """The options ``GET /users/v1/custom-fields/{id}/options`` lists for a dropdown field:
    its own ``dropdownOptions``, or ``count`` options ``Option <k>`` when set."""
    if count is None:
        return list(definition.get("dropdownOptions") or [])
    return [{"id": k + 1, "value": f"Option {k + 1}", "isDisabled": False, "isDeleted": False}
            for k in range(count)]  # fmt: skip
