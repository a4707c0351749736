"""The spec data mode for the shift layers domain: each scheduler's layers
(``SchedulerShiftLayerOutput``), each layer's values (``SchedulerShiftLayerValueOutput``), each
scheduler's shift custom fields (``ShiftCustomFieldSettingsResponse``) and the user custom-field
categories (``CustomFieldCategory``), drawn from their schemas by
:class:`~emulator.spec_records.SpecData`. Only the structural fields are set here: ids, unique
within their listing (their manifest keys are the warehouse keys, e.g.
``scheduler:layer:value``), and the counts of :class:`~emulator.config.OperationsConfig` (two
layers per scheduler, ``shift_layer_values`` values on each)."""

from __future__ import annotations

from ...protocols import Account
from ...spec_records import SpecData
from .data import ShiftSettings

LAYER = "SchedulerShiftLayerOutput"
LAYER_VALUE = "SchedulerShiftLayerValueOutput"
SHIFT_CUSTOM_FIELD = "ShiftCustomFieldSettingsResponse"
CATEGORY = "CustomFieldCategory"


def spec(gen: SpecData, account: Account) -> ShiftSettings:
    """Shift settings of a spec-data account over its schedulers (see the module docstring)."""
    config = account.config.operations
    out = ShiftSettings(options_count=config.dropdown_options)
    for scheduler in account.schedulers:
        layers = []
        for k in range(2):
            layer_id = f"{scheduler}-layer-{k + 1}"
            key = f"{scheduler}:{layer_id}"
            layers.append(gen.record(LAYER, "shift_layers", key, {"id": layer_id}))
            values = config.shift_layer_values
            out.values[layer_id] = [
                gen.record(
                    LAYER_VALUE,
                    "shift_layer_values",
                    f"{scheduler}:{layer_id}:value-{n + 1}",
                    {"id": f"value-{n + 1}"},
                    values,
                )
                for n in range(values)
            ]
        out.layers[scheduler] = layers
        count = config.shift_custom_fields
        out.custom_fields[scheduler] = [
            gen.record(
                SHIFT_CUSTOM_FIELD,
                "shift_custom_fields",
                f"{scheduler}:{n + 1}",
                {"id": str(n + 1)},
                count,
            )
            for n in range(count)
        ]
    count = config.custom_field_categories
    out.categories = [
        gen.record(CATEGORY, "user_custom_field_categories", n, {"id": n}, count)
        for n in range(1, count + 1)
    ]
    return out
