"""Pay resources: ``pay_rates`` (``GET /pay-rates/v1/pay-rates?isIncludeHistory=true``, merged
on ``pay_rate_key``) and ``pay_rule_policies`` (``GET /company-policies/v1/pay-rule-policies``,
merged on ``id``)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from itertools import chain
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import BIGINT, BOOL, DOUBLE, JSON, TEXT, hints
from ..client import ConnecteamClient
from ..contract import deletions_allowed
from ..listing import all_consistent, complete_listing, live
from ..loaded import only_changed, vanished
from ..registry import STREAMS
from ..windows import date_windows, trailing_dates, utc_date
from .common import DELETION_MARK, diff_listing, listing_tables
from .run import Builders, window_days

logger = logging.getLogger("sources.connecteam")

_WINDOW = STREAMS["pay_rates"].window
assert _WINDOW is not None and _WINDOW.max_days is not None
PAY_RATES_MAX_DAYS = _WINDOW.max_days
"""Widest pay-rates range, days inclusive (spec: "Date range cannot exceed 365 days")."""

PAY_RATE_COLUMNS: dict[str, str] = {
    "pay_rate_key": TEXT,
    "user_id": BIGINT,
    "effective_date": TEXT,
    "rate_type": TEXT,
    "rate_kind": TEXT,
    "resource_id": TEXT,
    "sub_resource_id": TEXT,
    "rate": DOUBLE,
    "is_using_default_rate": BOOL,
    "is_using_parent_rate": BOOL,
    "is_default_rate_enabled": BOOL,
    "is_resource_rate_enabled": BOOL,
    "is_apply_default_rate_to_new_resource": BOOL,
    "created_by": BIGINT,
    "created_at": BIGINT,
    "modified_at": BIGINT,
    "modifications": JSON,
    **DELETION_MARK,
}
POLICY_COLUMNS: dict[str, str] = {"id": BIGINT, **DELETION_MARK}


def pay_rate_rows(item: dict[str, Any]) -> list[dict[str, Any]]:
    """One ``PayRateByUserResponse`` (``{userId, payRate}``) as warehouse rows: the default rate
    (``rate_kind`` ``default``, always, carrying the record's flags and ``modifications``), one
    per resource rate (``resource``) and one per sub-resource rate (``sub_resource``).

    Keys: ``<userId>:<effectiveDate>:default``, ``...:<resourceId>``,
    ``...:<resourceId>:<subResourceId>``. A record without ``payRate`` gives its default row
    only, every value null.
    """
    found = item.get("payRate")
    rate: dict[str, Any] = found if isinstance(found, dict) else {}
    user, effective = item.get("userId"), rate.get("effectiveDate")
    prefix = f"{user}:{effective}"
    common = {
        "user_id": user,
        "effective_date": effective,
        "rate_type": rate.get("rateType"),
        "is_default_rate_enabled": rate.get("isDefaultRateEnabled"),
        "is_resource_rate_enabled": rate.get("isResourceRateEnabled"),
        "is_apply_default_rate_to_new_resource": rate.get("isApplyDefaultRateToNewResource"),
        "created_by": rate.get("createdBy"),
        "created_at": rate.get("createdAt"),
        "modified_at": rate.get("modifiedAt"),
    }
    rows = [
        {**common, "pay_rate_key": f"{prefix}:default", "rate_kind": "default",
         "rate": rate.get("defaultRate"), "modifications": rate.get("modifications")}
    ]  # fmt: skip
    for resource in rate.get("resourcesRates") or []:
        if not isinstance(resource, dict):
            continue
        rid = resource.get("resourceId")
        rows.append(
            {**common, "pay_rate_key": f"{prefix}:{rid}", "rate_kind": "resource",
             "resource_id": rid, "rate": resource.get("rate"),
             "is_using_default_rate": resource.get("isUsingDefaultRate")}
        )  # fmt: skip
        for sub in resource.get("subResourcesRates") or []:
            if not isinstance(sub, dict):
                continue
            sid = sub.get("subResourceId")
            rows.append(
                {**common, "pay_rate_key": f"{prefix}:{rid}:{sid}", "rate_kind": "sub_resource",
                 "resource_id": rid, "sub_resource_id": sid, "rate": sub.get("rate"),
                 "is_using_parent_rate": sub.get("isUsingParentRate")}
            )  # fmt: skip
    return rows


def pay_rates(
    client: ConnecteamClient, days_back: int, days_ahead: int, backfill_start: int | None
) -> DltResource:
    """``pay_rates``: the rates in effect during ``[today - days_back, today + days_ahead]``
    (the first run from ``backfill_start`` when earlier), with their modification history, in
    ranges of at most 365 days; one row per user x effective date x rate, merged on
    ``pay_rate_key``; only new or changed rows load (digest). A loaded live row whose effective
    date lies in the run's range that no range returns any more is marked deleted (only after
    complete listings)."""

    @dlt.resource(
        name="pay_rates",
        primary_key="pay_rate_key",
        write_disposition="merge",
        columns=hints(PAY_RATE_COLUMNS),
    )
    def _pay_rates() -> Iterator[pa.Table]:
        state = dlt.current.resource_state()
        now = client.now
        first, _ = trailing_dates(
            now, days_back, None if state.get("backfilled") else backfill_start
        )
        last = utc_date(now) + timedelta(days=days_ahead)
        progress = Progress("pay_rates", logger=logger)
        rows: dict[str, dict[str, Any]] = {}
        windows = [{"startDate": lo.isoformat(), "endDate": hi.isoformat(),
                    "isIncludeHistory": "true"}
                   for lo, hi in date_windows(first, last, PAY_RATES_MAX_DAYS)]  # fmt: skip
        parts = []
        for params in windows:
            listed, whole = complete_listing(
                client.pages(STREAMS["pay_rates"], params), progress.page
            )
            parts.append(whole)
            for item in listed:
                rows.update((r["pay_rate_key"], r) for r in pay_rate_rows(item))

        def again(_gone: set[str]) -> set[str]:
            pages = chain(*(client.pages(STREAMS["pay_rates"], p) for p in windows))
            return {r["pay_rate_key"] for page, _ in pages for i in page for r in pay_rate_rows(i)}

        changed = [live(r) for r in only_changed(list(rows.values()), "pay_rate_key")]
        inside = (
            "effective_date >= %s and effective_date <= %s",
            (first.isoformat(), last.isoformat()),
        )
        whole = deletions_allowed(client.stats.quarantine, "pay_rates", all_consistent(parts))
        gone = vanished("pay_rates", "pay_rate_key", set(rows), whole, int(now),
                        *inside, reread=again)  # fmt: skip
        progress.done(f" in {first}..{last} ({len(changed)} new or changed, {len(gone)} deleted)")
        state["backfilled"] = True
        yield from listing_tables(client, "pay_rates", PAY_RATE_COLUMNS, changed, gone)

    return _pay_rates


def pay_rule_policies(client: ConnecteamClient) -> DltResource:
    """``pay_rule_policies``: the account's pay rule policies (the provider's record), merged on
    ``id``; only changed ones load; one the listing no longer holds is marked deleted."""

    @dlt.resource(
        name="pay_rule_policies",
        primary_key="id",
        write_disposition="merge",
        columns=hints(POLICY_COLUMNS),
    )
    def _policies() -> Iterator[pa.Table]:
        listed, complete = complete_listing(client.pages(STREAMS["pay_rule_policies"]))
        changed, gone = diff_listing(client, "pay_rule_policies", "id", listed, complete)
        logger.info("pay_rule_policies: %d listed, %d changed, %d deleted",
                    len(listed), len(changed), len(gone))  # fmt: skip
        yield from listing_tables(client, "pay_rule_policies", POLICY_COLUMNS, changed, gone)

    return _policies


RESOURCES: Builders = {
    "pay_rates": lambda run: pay_rates(
        run.client, *window_days("pay_rates"), run.windows.activities[1]
    ),
    "pay_rule_policies": lambda run: pay_rule_policies(run.client),
}
"""This domain's streams and how each one's resource is built for a run."""
