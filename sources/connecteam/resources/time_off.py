"""Time-off resources: ``time_off_requests`` (``GET /time-off/v1/requests``, every status,
merged on ``id``, in ``startDate``/``endDate`` windows of at most 365 days),
``time_off_policy_types`` (``GET /time-off/v1/policy-types``, merged on ``id``) and
``time_off_balances`` (``GET /time-off/v1/policy-types/{policyTypeId}/balances``, a row per
user x policy per sync day)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from functools import partial
from itertools import chain
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import BIGINT, DOUBLE, JSON, TEXT, ArrowRows, hints
from ..client import ConnecteamClient
from ..contract import deletions_allowed
from ..errors import ParentNotFoundError
from ..fanout import in_parallel
from ..listing import all_consistent, complete_listing, live, second_pass
from ..loaded import only_changed, vanished
from ..registry import STREAMS
from ..windows import date_windows, trailing_dates, utc_date
from .common import DELETION_MARK, Listing, diff_listing, listing_tables
from .run import Builders

logger = logging.getLogger("sources.connecteam")

_WINDOW = STREAMS["time_off_requests"].window
assert _WINDOW is not None and _WINDOW.max_days is not None
TIME_OFF_MAX_DAYS = _WINDOW.max_days
"""Widest time-off requests window, days inclusive (spec: "may not exceed 365 days")."""


TIME_OFF_COLUMNS: dict[str, str] = {
    "time_clock_id": BIGINT,
    "duration_amount": DOUBLE,
    "duration_units": TEXT,
    **DELETION_MARK,
}


def time_off_requests(
    client: ConnecteamClient, days_back: int, days_ahead: int, backfill_start: int | None
) -> DltResource:
    """``time_off_requests``: requests of every status overlapping ``[today - days_back,
    today + days_ahead]`` (the first run from ``backfill_start`` when earlier), in windows of
    at most 365 days; merged on ``id``; only new or changed ones load. A loaded request
    overlapping the run's range that no window returns any more is marked deleted."""

    @dlt.resource(
        name="time_off_requests",
        primary_key="id",
        write_disposition="merge",
        parallelized=True,
        columns=hints(TIME_OFF_COLUMNS),
    )
    def _time_off_requests() -> Iterator[pa.Table]:
        state = dlt.current.resource_state()
        now = client.now
        first, _ = trailing_dates(
            now, days_back, None if state.get("backfilled") else backfill_start
        )
        last = utc_date(now) + timedelta(days=days_ahead)
        progress = Progress("time_off_requests", logger=logger)
        rows: dict[str, dict[str, Any]] = {}
        windows = [
            {
                "startDate": lo.isoformat(),
                "endDate": hi.isoformat(),
                "statuses": ["approved", "pending", "denied"],  # every status the spec has
            }
            for lo, hi in date_windows(first, last, TIME_OFF_MAX_DAYS)
        ]
        parts = []
        for params in windows:
            listed, whole = complete_listing(
                client.pages(STREAMS["time_off_requests"], params), progress.page
            )
            parts.append(whole)
            rows.update((str(r["id"]), time_off_row(r)) for r in listed)
        again = second_pass(
            lambda: chain(*(client.pages(STREAMS["time_off_requests"], p) for p in windows)),
            lambda r: str(r["id"]),
        )
        changed = [live(r) for r in only_changed(list(rows.values()), "id")]
        # the loaded requests the range covers: the ones the provider would return
        overlapping = (
            "cast(start_date as varchar) <= %s and cast(end_date as varchar) >= %s",
            (last.isoformat(), first.isoformat()),
        )
        quarantine = client.stats.quarantine
        whole = deletions_allowed(quarantine, "time_off_requests", all_consistent(parts))
        gone = vanished("time_off_requests", "id", set(rows), whole, int(now),
                        *overlapping, reread=again)  # fmt: skip
        progress.done(f" in {first}..{last} ({len(changed)} new or changed, {len(gone)} deleted)")
        state["backfilled"] = True
        yield from listing_tables(client, "time_off_requests", TIME_OFF_COLUMNS, changed, gone)

    return _time_off_requests


def time_off_row(record: dict[str, Any]) -> dict[str, Any]:
    """One time-off request (``TimeOffRequestCreateResponse``) as a warehouse row."""
    duration = record.get("duration") or {}
    return {
        "id": str(record["id"]),
        "policy_type_id": record.get("policyTypeId"),
        "user_id": record.get("userId"),
        "time_clock_id": record.get("timeClockId"),
        "is_all_day": record.get("isAllDay"),
        "start_date": record.get("startDate"),
        "end_date": record.get("endDate"),
        "start_time": record.get("startTime"),
        "end_time": record.get("endTime"),
        "timezone": record.get("timezone"),
        "status": record.get("status"),
        "duration_units": duration.get("units"),
        "duration_amount": duration.get("amount"),
        "employee_note": record.get("employeeNote"),
        "manager_note": record.get("managerNote"),
    }


POLICY_TYPE_COLUMNS: dict[str, str] = {"id": TEXT, "policies": JSON, **DELETION_MARK}
BALANCE_COLUMNS: dict[str, str] = {
    "balance_key": TEXT,
    "policy_type_id": TEXT,
    "policy_id": TEXT,
    "user_id": BIGINT,
    "units": TEXT,
    "balance": DOUBLE,
    "as_of_date": TEXT,
    "synced_at": BIGINT,
}


def policy_type_row(record: dict[str, Any]) -> dict[str, Any]:
    """One time-off policy type (``TimeOffPolicyType``) as a warehouse row; its policies
    (``{id, name, unit, accrualType}``) as JSON."""
    return {"id": str(record.get("id")), "name": record.get("name"),
            "policies": record.get("policies") or []}  # fmt: skip


def time_off_policy_types(client: ConnecteamClient, policy_type_list: Listing) -> DltResource:
    """``time_off_policy_types``: the account's policy types with their policies, merged on
    ``id``; only changed ones load; one the listing no longer holds is marked deleted."""

    @dlt.resource(
        name="time_off_policy_types",
        primary_key="id",
        write_disposition="merge",
        columns=hints(POLICY_TYPE_COLUMNS),
    )
    def _policy_types() -> Iterator[pa.Table]:
        listed, complete = policy_type_list()
        rows = [policy_type_row(r) for r in listed]
        changed, gone = diff_listing(client, "time_off_policy_types", "id", rows, complete)
        logger.info("time_off_policy_types: %d listed, %d changed, %d deleted",
                    len(rows), len(changed), len(gone))  # fmt: skip
        yield from listing_tables(client, "time_off_policy_types", POLICY_TYPE_COLUMNS,
                                  changed, gone)  # fmt: skip

    return _policy_types


def balance_row(
    policy_type_id: str, record: dict[str, Any], as_of: str, now: int
) -> dict[str, Any]:
    """One ``TimeOffUserBalance`` of a policy type as the row of day ``as_of`` (YYYY-MM-DD)."""
    key = f"{policy_type_id}:{record.get('policyId')}:{record.get('userId')}:{as_of}"
    return {
        "balance_key": key,
        "policy_type_id": policy_type_id,
        "policy_id": record.get("policyId"),
        "user_id": record.get("userId"),
        "units": record.get("units"),
        "balance": record.get("balance"),
        "as_of_date": as_of,
        "synced_at": now,
    }


def time_off_balances(client: ConnecteamClient, policy_type_list: Listing) -> DltResource:
    """``time_off_balances``: every user's balance of every policy of every policy type, as rows
    of the run's UTC day (``as_of_date``), merged on ``balance_key`` (a later run that day
    replaces them). A policy type that vanished since it was listed (404) is skipped, named."""

    @dlt.resource(
        name="time_off_balances",
        primary_key="balance_key",
        write_disposition="merge",
        columns=hints(BALANCE_COLUMNS),
    )
    def _balances() -> Iterator[pa.Table]:
        now = int(client.now)
        as_of = utc_date(now).isoformat()
        arrow = ArrowRows("time_off_balances", BALANCE_COLUMNS, client.stats.untyped_values)

        def one(policy_type: dict[str, Any]) -> Iterator[pa.Table]:
            type_id = str(policy_type.get("id"))
            progress = Progress(f"time_off_balances[{type_id}]", logger=logger)
            try:
                pages = client.paginate(
                    STREAMS["time_off_balances"], None, {"policyTypeId": type_id}
                )
                yield from arrow.batches(
                    [balance_row(type_id, r, as_of, now) for r in page]
                    for page in progress.track(pages)
                )
            except ParentNotFoundError as exc:
                client.skip_parent(exc, "time_off_balances")
            progress.done(f" as of {as_of}")

        # up to max_in_flight policy types at once
        tasks = [partial(one, policy_type) for policy_type in policy_type_list()[0]]
        yield from in_parallel(tasks, client.max_in_flight)

    return _balances


RESOURCES: Builders = {
    "time_off_requests": lambda run: time_off_requests(
        run.client, *run.windows.time_off, run.windows.activities[1]
    ),
    "time_off_policy_types": lambda run: time_off_policy_types(run.client, run.policy_types),
    "time_off_balances": lambda run: time_off_balances(run.client, run.policy_types),
}
"""This domain's streams and how each one's resource is built for a run."""
