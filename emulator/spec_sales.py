"""The emulator's spec data mode for sales: locations and daily sales drawn from their schemas
(``Location``, ``DailySalesEntry``) by :class:`~emulator.spec_records.SpecData`. Only the
structural fields are set here: each location's ``id``, each entry's ``locationId`` (one of the
locations) and ``date`` (unique per location, within the sales days of
:func:`emulator.sales_data.sales_days`)."""

from __future__ import annotations

from .config import OperationsConfig
from .sales_data import Sales, location_ids, sales_days
from .spec_records import SpecData


def spec_sales(gen: SpecData, config: OperationsConfig) -> Sales:
    """Sales records of a spec-data account (see the module docstring): every location has an
    entry on about half of the sales days."""
    out = Sales()
    ids = location_ids(config)
    for location in ids:
        out.locations.append(
            gen.record("locations", "sales_locations", location, {"id": location}, len(ids))
        )
    days = sales_days(config, gen.anchor)
    wanted = len(ids) * len(days) // 2
    for day in days:
        for location in ids:
            if gen.rng.random() < 0.5:
                continue
            structural = {"date": day.isoformat(), "locationId": location}
            key = f"{location}:{day.isoformat()}"
            out.daily_sales.append(gen.record("daily_sales", "daily_sales", key, structural,
                                              wanted))  # fmt: skip
    return out
