"""The emulator's spec data mode for shift layers and custom-field labels: each scheduler's
layers (``SchedulerShiftLayerOutput``), each layer's values (``SchedulerShiftLayerValueOutput``),
each scheduler's shift custom fields (``ShiftCustomFieldSettingsResponse``) and the user
custom-field categories (``CustomFieldCategory``), drawn from their schemas by
:class:`~emulator.spec_records.SpecData`. Only the structural fields are set here: ids, unique
within their listing (their manifest keys are the warehouse keys, e.g.
``scheduler:layer:value``), and the counts of :class:`~emulator.config.OperationsConfig` (two
layers per scheduler, ``shift_layer_values`` values on each)."""

from __future__ import annotations

from .config import OperationsConfig
from .shift_layers_data import ShiftSettings
from .spec_records import SpecData


def spec_shift_settings(
    gen: SpecData, config: OperationsConfig, scheduler_ids: list[int]
) -> ShiftSettings:
    """Shift settings of a spec-data account (see the module docstring)."""
    out = ShiftSettings(options_count=config.dropdown_options)
    for scheduler in scheduler_ids:
        layers = []
        for k in range(2):
            layer_id = f"{scheduler}-layer-{k + 1}"
            key = f"{scheduler}:{layer_id}"
            layers.append(gen.record("shift_layers", "shift_layers", key, {"id": layer_id}))
            values = config.shift_layer_values
            out.values[layer_id] = [
                gen.record(
                    "shift_layer_values",
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
                "shift_custom_fields",
                "shift_custom_fields",
                f"{scheduler}:{n + 1}",
                {"id": str(n + 1)},
                count,
            )
            for n in range(count)
        ]
    count = config.custom_field_categories
    out.categories = [
        gen.record("custom_field_categories", "user_custom_field_categories", n, {"id": n}, count)
        for n in range(1, count + 1)
    ]
    return out
