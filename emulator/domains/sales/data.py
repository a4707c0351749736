"""The sales domain's records: the account's locations and their daily sales (:class:`Sales`);
tidy (:func:`tidy`, :func:`tidy_sales`) or drawn from the spec's schemas
(:mod:`emulator.domains.sales.spec`). Served by :mod:`emulator.domains.sales.routes`.

Records follow the spec's components: ``Location`` (``{id, name, isActive}``) and
``DailySalesEntry`` (``{date, locationId, totalSales, projectedSales}``). The spec says of daily
sales: "Only days with stored daily aggregation data are returned; days with no data are omitted
(not returned as zero)"; ``totalSales`` "may be null when no transactions exist" and
``projectedSales`` "may be null if not set". The tidy account therefore has no entry for some
days, future days with a projection only, and past days with both.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from ...config import OperationsConfig
from ...protocols import Account
from ..domain import records_of

NAME = "sales"
LOCATION_NAMES = ["Downtown", "Harbour", "Airport", "Old Town", "Station", "Mall", "Campus"]


@dataclass
class Sales:
    """Sales records of one account.

    Attributes:
        locations: ``Location`` records, in id order.
        daily_sales: ``DailySalesEntry`` records, by date then location.
    """

    locations: list[dict[str, Any]] = field(default_factory=list)
    daily_sales: list[dict[str, Any]] = field(default_factory=list)


def sales_of(account: Account) -> Sales:
    """The account's sales records (see :func:`~emulator.domains.domain.records_of`)."""
    return records_of(account, NAME, Sales)


def location_ids(config: OperationsConfig) -> list[int]:
    """The ids of the account's ``config.sales_locations`` locations: 4100, 4101, ..."""
    return [4100 + k for k in range(config.sales_locations)]


def sales_days(config: OperationsConfig, anchor: int) -> list[date]:
    """The days that may hold sales: ``config.sales_days_back`` days before the anchor's UTC
    day to ``config.sales_days_ahead`` days after it (projections)."""
    today = datetime.fromtimestamp(anchor, UTC).date()
    first = today - timedelta(days=config.sales_days_back)
    span = config.sales_days_back + config.sales_days_ahead + 1
    return [first + timedelta(days=k) for k in range(span)]


def tidy_sales(config: OperationsConfig, seed: int, anchor: int, users: int = 0) -> Sales:
    """The tidy account's locations (the last one inactive when there are three or more) and
    daily sales: a past day has actual sales (two decimals) and, on most days, a projection; a
    future day a projection only; about one day in twelve has no entry at all. A day's sales
    grow with the account's ``users`` (about 3.2 per user and location, at least 1,500), so
    labour stays a plausible share of them."""
    rng = random.Random(seed * 7919 + 41)
    out = Sales()
    ids = location_ids(config)
    for k, location in enumerate(ids):
        name = LOCATION_NAMES[k % len(LOCATION_NAMES)]
        name = name if k < len(LOCATION_NAMES) else f"{name} {k // len(LOCATION_NAMES) + 1}"
        inactive = len(ids) >= 3 and k == len(ids) - 1
        out.locations.append({"id": location, "name": name, "isActive": not inactive})
    today = datetime.fromtimestamp(anchor, UTC).date()
    for day in sales_days(config, anchor):
        for location in ids:
            if rng.random() < 1 / 12:
                continue  # no stored aggregation that day: omitted, not zero
            base = max(1500, 3.2 * users) + (location % 7) * 250
            base += 300 if day.weekday() >= 5 else 0
            projected = round(base * rng.uniform(0.9, 1.1), 2) if rng.random() < 0.8 else None
            total = round(base * rng.uniform(0.7, 1.3), 2) if day < today else None
            if total is None and projected is None:
                continue
            out.daily_sales.append({"date": day.isoformat(), "locationId": location,
                                    "totalSales": total, "projectedSales": projected})  # fmt: skip
    return out


def listed(account: Account) -> dict[str, list[dict[str, Any]]]:
    """Every location and daily sales entry (see
    :attr:`~emulator.domains.domain.Domain.listed`)."""
    found = sales_of(account)
    return {"sales_locations": found.locations, "daily_sales": found.daily_sales}


def tidy(account: Account, anchor: int) -> Sales:
    """The tidy account's sales (:func:`tidy_sales`) for its seed and ``anchor`` (UTC epoch
    seconds), sized by its active users."""
    config = account.config
    return tidy_sales(config.operations, config.seed, anchor, len(account.active_users()))


def daily_sales_in(
    sales: Sales, first: date, last: date, locations: set[int] | None
) -> list[dict[str, Any]]:
    """The entries dated ``first`` .. ``last`` (inclusive) of ``locations`` (every location when
    ``None``), by date then location."""
    low, high = first.isoformat(), last.isoformat()
    return [
        entry
        for entry in sales.daily_sales
        if low <= str(entry.get("date")) <= high
        and (locations is None or entry.get("locationId") in locations)
    ]
