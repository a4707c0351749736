"""The pay and leave domain's routes (spec paths, parameters, maxima and 422s):

* ``GET /pay-rates/v1/pay-rates`` (limit <= 500; ``startDate``/``endDate`` required,
  ``YYYY-MM-DD``, at most 365 days inclusive; the rates in effect during the range, including
  each user's most recent one before ``startDate``; ``userIds``, ``rateType``,
  ``isIncludeHistory``: ``modifications`` only when true)
* ``GET /company-policies/v1/pay-rule-policies`` (not paged)
* ``GET /time-off/v1/policy-types/{policyTypeId}/balances`` (limit <= 100; ``userIds``; 404 for an
  unknown policy type)
* ``GET /scheduler/v1/schedulers/{schedulerId}/unavailabilities`` (limit <= 500; ``startTime`` /
  ``endTime`` epoch seconds required: the unavailabilities whose UTC day overlaps them; 404 for an
  unknown scheduler)

Records: :mod:`emulator.domains.pay_leave.data`.
"""

from __future__ import annotations

from datetime import date
from enum import StrEnum
from typing import Annotated, Any

from fastapi import FastAPI, Path, Query
from fastapi.responses import Response

from ...auth import requirement
from ...protocols import Server
from ...responses import envelope, json_response, paged, parse_window
from .data import PayLeave, pay_leave_of, unavailability_epochs

PAY_RATES_MAX_DAYS = 365
"""The spec: "Date range cannot exceed 365 days"."""


class RateType(StrEnum):
    hourly = "hourly"
    monthly = "monthly"
    yearly = "yearly"


def rates_in_effect(items: list[dict[str, Any]], first: str, last: str) -> list[dict[str, Any]]:
    """The pay rate items in effect during ``first`` .. ``last`` (ISO dates): effective inside the
    range, or each user's most recent one effective before ``first``; in the listed order."""
    latest_before: dict[Any, str] = {}
    for item in items:
        effective = str((item.get("payRate") or {}).get("effectiveDate"))
        if effective < first:
            user = item.get("userId")
            latest_before[user] = max(latest_before.get(user, ""), effective)
    return [
        item
        for item in items
        if (effective := str((item.get("payRate") or {}).get("effectiveDate"))) <= last
        and (effective >= first or latest_before.get(item.get("userId")) == effective)
    ]


def pay_rates(
    records: PayLeave,
    window: tuple[date, date],
    user_ids: list[int] | None,
    rate_type: RateType | None,
    history: bool,
) -> list[dict[str, Any]]:
    """``GET /pay-rates/v1/pay-rates``'s items: in effect during ``window`` (first and last day,
    :func:`rates_in_effect`), of one of ``user_ids`` (any when none), of ``rate_type`` (any when
    none); without their ``payRate.modifications`` unless ``history``."""
    first, last = (d.isoformat() for d in window)
    users = set(user_ids or [])
    rows = [
        item
        for item in rates_in_effect(records.pay_rates, first, last)
        if (not users or item.get("userId") in users)
        and (rate_type is None or (item.get("payRate") or {}).get("rateType") == rate_type.value)
    ]
    if history:
        return rows
    return [
        {**item, "payRate": {k: v for k, v in item["payRate"].items() if k != "modifications"}}
        if isinstance(item.get("payRate"), dict)
        else item
        for item in rows
    ]


def unavailabilities(records: PayLeave, scheduler_id: int, start: int, end: int) -> list[Any]:
    """The unavailabilities of ``scheduler_id`` whose UTC days overlap ``[start, end)`` (epoch
    seconds); those with no readable day are left out."""
    rows = []
    for record in records.unavailabilities.get(scheduler_id, []):
        span = unavailability_epochs(record)
        if span is not None and span[0] < end and span[1] > start:
            rows.append(record)
    return rows


def add_routes(app: FastAPI, state: Server) -> None:
    """Register the pay and leave endpoints on ``app`` (see the module docstring)."""
    _add_pay_routes(app, state)
    _add_leave_routes(app, state)


def _add_pay_routes(app: FastAPI, state: Server) -> None:
    """Pay rates and pay rule policies."""

    def records() -> PayLeave:
        return pay_leave_of(state.dataset)

    @app.get("/pay-rates/v1/pay-rates", dependencies=[requirement(state, "pay_rates.read")])
    async def get_pay_rates(
        startDate: Annotated[str, Query()],  # noqa: N803
        endDate: Annotated[str, Query()],  # noqa: N803
        userIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
        rateType: RateType | None = None,  # noqa: N803
        isIncludeHistory: bool = False,  # noqa: N803
        limit: Annotated[int, Query(ge=1, le=500)] = 100,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        window = parse_window(startDate, endDate, PAY_RATES_MAX_DAYS)
        if isinstance(window, Response):
            return window
        listed = records().pay_rates
        # built once per window and query, not per page; the length keys it too, for a list
        # changed in place without a new dataset version
        key = ("pay_rates", len(listed), window, tuple(sorted(userIds or ())), rateType,
               isIncludeHistory)  # fmt: skip
        rows = state.cached_listing(
            key, lambda: pay_rates(records(), window, userIds, rateType, isIncludeHistory)
        )
        return paged("payRatesByUsers", rows, offset, limit, state.options.paging_total)

    @app.get(
        "/company-policies/v1/pay-rule-policies",
        dependencies=[requirement(state, "company_policies.read")],
    )
    async def get_pay_rule_policies() -> Response:
        return envelope({"payRulesPolicies": records().pay_rule_policies})


def _add_leave_routes(app: FastAPI, state: Server) -> None:
    """Time-off balances and scheduler unavailabilities."""

    def records() -> PayLeave:
        return pay_leave_of(state.dataset)

    def page(key: str, rows: list[Any], offset: int, limit: int) -> Response:
        return paged(key, rows, offset, limit, state.options.paging_total)

    @app.get(
        "/time-off/v1/policy-types/{policyTypeId}/balances",
        dependencies=[requirement(state, "time_off.read")],
    )
    async def get_balances(
        policyTypeId: Annotated[str, Path()],  # noqa: N803
        userIds: Annotated[list[int] | None, Query()] = None,  # noqa: N803
        limit: Annotated[int, Query(ge=1, le=100)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        balances = records().balances.get(policyTypeId)
        if balances is None:
            return json_response({"detail": f"Policy type {policyTypeId} not found"}, 404)
        if userIds:
            wanted = set(userIds)
            balances = [b for b in balances if b.get("userId") in wanted]
        return page("balances", balances, offset, limit)

    @app.get(
        "/scheduler/v1/schedulers/{schedulerId}/unavailabilities",
        dependencies=[requirement(state, "schedule.read")],
    )
    async def get_unavailabilities(
        schedulerId: Annotated[int, Path()],  # noqa: N803
        startTime: Annotated[int, Query()],  # noqa: N803
        endTime: Annotated[int, Query()],  # noqa: N803
        limit: Annotated[int, Query(ge=1, le=500)] = 10,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Response:
        if schedulerId not in state.dataset.schedulers:
            return json_response({"detail": f"Scheduler {schedulerId} not found"}, 404)
        rows = unavailabilities(records(), schedulerId, startTime, endTime)
        return page("unavailabilities", rows, offset, limit)
