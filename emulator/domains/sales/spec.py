"""The spec data mode for the sales domain: locations and daily sales drawn from their schemas
(``Location``, ``DailySalesEntry``) by :class:`~emulator.spec_records.SpecData`. Only the
structural fields are set here: each location's ``id``, each entry's ``locationId`` (one of the
locations) and ``date`` (unique per location, within the sales days of
:func:`emulator.domains.sales.data.sales_days`)."""

from __future__ import annotations

from ...protocols import Account
from ...spec_records import SpecData
from .data import Sales, location_ids, sales_days

LOCATION = "Location"
DAILY_SALES = "DailySalesEntry"


def spec(gen: SpecData, account: Account) -> Sales:
    """Sales records of a spec-data account (see the module docstring): every location has an
    entry on about half of the sales days."""
    config = account.config.operations
    out = Sales()
    ids = location_ids(config)
    for location in ids:
        out.locations.append(
            gen.record(LOCATION, "sales_locations", location, {"id": location}, len(ids))
        )
    days = sales_days(config, gen.anchor)
    wanted = len(ids) * len(days) // 2
    for day in days:
        for location in ids:
            if gen.rng.random() < 0.5:
                continue
            structural = {"date": day.isoformat(), "locationId": location}
            key = f"{location}:{day.isoformat()}"
            out.daily_sales.append(gen.record(DAILY_SALES, "daily_sales", key, structural,
                                              wanted))  # fmt: skip
    return out
