"""Sales resources: ``sales_locations`` (``GET /sales/v1/locations``) and ``daily_sales``
(``GET /sales/v1/daily-sales``), the denominator of labour cost as a share of sales.

The spec's ``DailySalesEntry``: ``date`` (``YYYY-MM-DD``, the location's calendar day),
``locationId``, ``totalSales`` ("aggregated from transactions. May be null when no transactions
exist") and ``projectedSales`` ("set via Set projected sales. May be null if not set"); "Only
days with stored daily aggregation data are returned; days with no data are omitted (not
returned as zero)". The answers name no currency.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import BIGINT, BOOL, DOUBLE, TEXT, hints
from ..client import ConnecteamClient
from ..contract import deletions_allowed
from ..listing import live
from ..loaded import only_changed, vanished
from ..registry import STREAMS
from ..windows import date_windows, utc_date
from .common import DELETION_MARK, listing_tables, record_listing
from .run import Builders, window_days

logger = logging.getLogger("sources.connecteam")

LOCATION_COLUMNS: dict[str, str] = {"id": BIGINT, "name": TEXT, "is_active": BOOL,
                                    **DELETION_MARK}  # fmt: skip
DAILY_SALES_COLUMNS: dict[str, str] = {
    "daily_sales_key": TEXT,
    "location_id": BIGINT,
    "date": TEXT,
    "total_sales": DOUBLE,
    "projected_sales": DOUBLE,
    **DELETION_MARK,
}


def sales_locations(client: ConnecteamClient) -> DltResource:
    """``sales_locations``: every location of the account (active or not), merged on ``id``;
    only changed ones load; one the complete listing no longer holds is marked deleted
    (:func:`~.common.record_listing`)."""
    return record_listing(client, "sales_locations", LOCATION_COLUMNS, location_row)


def location_row(record: dict[str, Any]) -> dict[str, Any]:
    """One ``Location`` as a warehouse row: ``id``, ``name``, ``is_active``."""
    return {"id": record.get("id"), "name": record.get("name"), "is_active": record.get("isActive")}


def daily_sales(client: ConnecteamClient, days_back: int, days_ahead: int) -> DltResource:
    """``daily_sales``: the entries dated ``today - days_back .. today + days_ahead`` (UTC dates;
    projections ahead), every location, merged on ``daily_sales_key`` (``location:date``); only
    new or changed ones load. A loaded entry of the range the provider no longer returns is
    marked deleted (its day's aggregation was removed)."""

    @dlt.resource(
        name="daily_sales",
        primary_key="daily_sales_key",
        write_disposition="merge",
        columns=hints(DAILY_SALES_COLUMNS),
    )
    def _daily_sales() -> Iterator[pa.Table]:
        now = client.now
        first = utc_date(now) - timedelta(days=days_back)
        last = utc_date(now) + timedelta(days=days_ahead)
        window = STREAMS["daily_sales"].window
        step = window.max_days if window is not None and window.max_days else 10_000
        progress = Progress("daily_sales", logger=logger)
        rows: dict[str, dict[str, Any]] = {}
        for lo, hi in date_windows(first, last, step):
            params = {"startDate": lo.isoformat(), "endDate": hi.isoformat()}
            for page in client.paginate(STREAMS["daily_sales"], params):
                progress.page(len(page))
                rows.update((row["daily_sales_key"], row) for row in map(daily_sales_row, page))
        changed = [live(r) for r in only_changed(list(rows.values()), "daily_sales_key")]
        in_range = ('"date" >= %s and "date" <= %s', (first.isoformat(), last.isoformat()))
        whole = deletions_allowed(client.stats.quarantine, "daily_sales", True)
        gone = vanished("daily_sales", "daily_sales_key", set(rows), whole, int(now), *in_range)
        progress.done(f" in {first}..{last} ({len(changed)} new or changed, {len(gone)} deleted)")
        yield from listing_tables(client, "daily_sales", DAILY_SALES_COLUMNS, changed, gone)

    return _daily_sales


def daily_sales_row(entry: dict[str, Any]) -> dict[str, Any]:
    """One ``DailySalesEntry`` as a warehouse row, keyed ``<locationId>:<date>``; the sales as
    the provider sent them (null stays null: no transactions, or no projection set)."""
    return {
        "daily_sales_key": f"{entry.get('locationId')}:{entry.get('date')}",
        "location_id": entry.get("locationId"),
        "date": entry.get("date"),
        "total_sales": entry.get("totalSales"),
        "projected_sales": entry.get("projectedSales"),
    }


RESOURCES: Builders = {
    "sales_locations": lambda run: sales_locations(run.client),
    "daily_sales": lambda run: daily_sales(run.client, *window_days("daily_sales")),
}
"""This domain's streams and how each one's resource is built for a run."""
