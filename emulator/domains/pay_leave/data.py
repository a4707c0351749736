"""The pay and leave domain's records (:class:`PayLeave`): pay rates (with their history), pay
rule policies, time-off balances per policy type and scheduler unavailabilities; tidy
(:func:`tidy`, :func:`tidy_pay_leave`) or drawn from the spec's schemas
(:mod:`emulator.domains.pay_leave.spec`). Served by :mod:`emulator.domains.pay_leave.routes`.
The pay rates also price the timesheets' pay items (:attr:`Operations.pay_rates
<emulator.operations_data.Operations.pay_rates>`).

Records follow the spec's components: ``PayRateByUserResponse`` (``{userId, payRate}``; one item
per user x effective date), ``PayRulePolicy``, ``TimeOffUserBalance`` and
``SchedulerUnavailabilityResponse``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from ...config import DAY, OperationsConfig
from ...protocols import Account
from ..domain import records_of

NAME = "pay_leave"
PAY_RULE_POLICY_NAMES = ["Standard overtime", "Weekend premium", "Night differential"]
NOTES = ["Doctor's appointment", "Classes", None, "Childcare"]


@dataclass
class PayLeave:
    """Pay and leave records of one account.

    Attributes:
        pay_rates: ``PayRateByUserResponse`` items, by user then effective date.
        pay_rule_policies: ``PayRulePolicy`` records.
        balances: By policy type id: ``TimeOffUserBalance`` records.
        unavailabilities: By scheduler id: ``SchedulerUnavailabilityResponse`` records.
    """

    pay_rates: list[dict[str, Any]] = field(default_factory=list)
    pay_rule_policies: list[dict[str, Any]] = field(default_factory=list)
    balances: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    unavailabilities: dict[int, list[dict[str, Any]]] = field(default_factory=dict)


def pay_leave_of(account: Account) -> PayLeave:
    """The account's pay and leave records (see :func:`~emulator.domains.domain.records_of`)."""
    return records_of(account, NAME, PayLeave)


def listed(account: Account) -> dict[str, list[dict[str, Any]]]:
    """Every pay rate item, pay rule policy, balance (with its ``policyTypeId``) and
    unavailability (with its ``schedulerId``); see
    :attr:`~emulator.domains.domain.Domain.listed`."""
    found = pay_leave_of(account)
    return {
        "pay_rates": found.pay_rates,
        "pay_rule_policies": found.pay_rule_policies,
        "time_off_balances": [
            {"policyTypeId": pid, **row} for pid, rows in found.balances.items() for row in rows
        ],
        "scheduler_unavailabilities": [
            {"schedulerId": sid, **row}
            for sid, rows in found.unavailabilities.items()
            for row in rows
        ],
    }


def tidy(account: Account, anchor: int) -> PayLeave:
    """The tidy account's pay and leave records (:func:`tidy_pay_leave` over its active users,
    jobs, policy types and schedulers, for its seed and ``anchor``, UTC epoch seconds); its
    pay rates become the ones the timesheets price with (``account.operations.pay_rates``)."""
    config, ops = account.config, account.operations
    out = tidy_pay_leave(config.operations, config.seed, anchor, account.active_users(), ops.jobs,
                         ops.policy_types, list(account.schedulers))  # fmt: skip
    ops.pay_rates = out.pay_rates
    return out


def _iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).date().isoformat()


def pay_rate_users(config: OperationsConfig, users: list[int]) -> list[tuple[int, int]]:
    """``(user, versions)`` pairs: ``config.pay_rates`` items in all (default: 1.5 per user,
    every other user with a second effective date)."""
    wanted = config.pay_rates if config.pay_rates is not None else len(users) * 3 // 2
    pairs: list[tuple[int, int]] = []
    k = total = 0
    while total < wanted and users:
        versions = min(2, wanted - total)
        pairs.append((users[k % len(users)] + (k // len(users)) * 1_000_000, versions))
        total += versions
        k += 1
    return pairs


def tidy_pay_leave(
    config: OperationsConfig,
    seed: int,
    anchor: int,
    users: list[int],
    jobs: list[dict[str, Any]],
    policy_types: list[dict[str, Any]],
    scheduler_ids: list[int],
) -> PayLeave:
    """Deterministic pay and leave records for ``seed`` and ``anchor`` (UTC epoch seconds).

    Pay rates: per user an hourly default rate effective 120 days before the anchor; every other
    user gets a raise effective 3 days before the anchor (a change mid-week); every third user
    has resource rates for the first four live jobs: the first and third with rates of their own
    (the first's sub-job using its parent's rate), the second and fourth paying the default.
    Balances: one per active user per policy. Unavailabilities: ``config.unavailabilities``
    spread round-robin over the schedulers, within 30 days of the anchor.
    """
    rng = random.Random(seed * 104_729 + 7)
    out = PayLeave()
    job_ids = [str(j["jobId"]) for j in jobs if not j.get("isDeleted")][:4]
    for n, (user, versions) in enumerate(pay_rate_users(config, users)):
        base = round(rng.uniform(14, 32), 2)
        rate_type = "hourly" if n % 10 != 9 else rng.choice(["monthly", "yearly"])
        if rate_type != "hourly":
            base = base * (160 if rate_type == "monthly" else 2000)
        resources = job_ids if n % 3 == 0 and rate_type == "hourly" else []
        for v in range(versions):
            pay_rate = _pay_rate(anchor, base, rate_type, v, resources, users[0])
            out.pay_rates.append({"userId": user, "payRate": pay_rate})
    out.pay_rule_policies = [
        {"id": 7100 + k, "name": PAY_RULE_POLICY_NAMES[k % 3] + ("" if k < 3 else f" {k}")}
        for k in range(config.pay_rule_policies)
    ]
    for policy_type in policy_types:
        out.balances[str(policy_type["id"])] = _balances(rng, config, users, policy_type)
    out.unavailabilities = _unavailabilities(rng, config, anchor, users, scheduler_ids)
    return out


def _pay_rate(
    anchor: int, base: float, rate_type: str, version: int, job_ids: list[str], creator: int
) -> dict[str, Any]:
    """Version ``version`` (0: the default rate effective 120 days before ``anchor``; 1: a 10%
    raise effective 3 days before it, with its modification) of a user's ``PayRate`` of
    ``base`` per ``rate_type``; resource rates for ``job_ids`` (none: resource rates off)."""
    created = anchor - 120 * DAY
    effective = anchor - (120 if version == 0 else 3) * DAY
    rate = round(base * (1 if version == 0 else 1.1), 2)
    pay_rate: dict[str, Any] = {
        "effectiveDate": _iso(effective),
        "rateType": rate_type,
        "isDefaultRateEnabled": True,
        "defaultRate": rate,
        "isResourceRateEnabled": bool(job_ids),
        "isApplyDefaultRateToNewResource": True,
        "createdBy": creator,
        "createdAt": created + version * 117 * DAY,
    }
    if job_ids:
        first_job: dict[str, Any] = {
            "resourceId": job_ids[0],
            "isUsingDefaultRate": False,
            "rate": round(rate + 2.5, 2),
            "subResourcesRates": [{"subResourceId": f"{job_ids[0]}-a", "isUsingParentRate": True}],
        }
        others = [
            {"resourceId": j, "isUsingDefaultRate": k % 2 == 0,
             **({} if k % 2 == 0 else {"rate": round(rate + k, 2)})}
            for k, j in enumerate(job_ids[1:])
        ]  # fmt: skip
        pay_rate["resourcesRates"] = [first_job, *others]
    if version:
        pay_rate["modifiedAt"] = pay_rate["createdAt"]
        change = {"modifiedBy": creator, "modifiedAt": pay_rate["createdAt"],
                  "previousDefaultRate": round(base, 2)}  # fmt: skip
        pay_rate["modifications"] = [change]
    return pay_rate


def _balances(
    rng: random.Random, config: OperationsConfig, users: list[int], policy_type: dict[str, Any]
) -> list[dict[str, Any]]:
    """The balances of one policy type: per policy, ``config.time_off_balances`` (default one
    per user of ``users``) in the policy's unit (hours or days)."""
    policies = policy_type.get("policies") or [{"id": f"{policy_type['id']}-default"}]
    rows = []
    for policy in policies:
        unit = policy.get("unit") if policy.get("unit") in ("hours", "days") else "days"
        count = config.time_off_balances if config.time_off_balances is not None else len(users)
        for k in range(count):
            user = users[k % len(users)] + (k // len(users)) * 1_000_000 if users else k + 1
            balance = round(rng.uniform(0, 25), 1)
            rows.append(
                {"userId": user, "units": unit, "policyId": str(policy["id"]), "balance": balance}
            )
    return rows


def _unavailabilities(
    rng: random.Random,
    config: OperationsConfig,
    anchor: int,
    users: list[int],
    scheduler_ids: list[int],
) -> dict[int, list[dict[str, Any]]]:
    """``config.unavailabilities`` unavailabilities by scheduler (every scheduler listed, the
    schedulers taking turns), each on a day within 20 days before to 30 after ``anchor``."""
    out: dict[int, list[dict[str, Any]]] = {}
    for k in range(config.unavailabilities if scheduler_ids else 0):
        sid = scheduler_ids[k % len(scheduler_ids)]
        day = date.fromisoformat(_iso(anchor)) + timedelta(days=rng.randint(-20, 30))
        all_day = rng.random() < 0.4
        start_hour = rng.choice([8, 12, 16])
        record = {
            "id": f"un-{sid}-{k:05d}",
            "userId": rng.choice(users or [1]),
            "isAllDay": all_day,
            "unavailabilityDate": day.isoformat(),
            "startTime": None if all_day else f"{start_hour:02d}:00:00",
            "endTime": None if all_day else f"{start_hour + 4:02d}:00:00",
            "timezone": "America/New_York",
            "note": rng.choice(NOTES),
        }
        out.setdefault(sid, []).append(record)
    for sid in scheduler_ids:
        out.setdefault(sid, [])
    return out


def unavailability_epochs(record: dict[str, Any]) -> tuple[int, int] | None:
    """``(start, end)`` epoch seconds (UTC) an unavailability covers, read as UTC day and times
    (the emulator's filter), or ``None`` when its date is not a date."""
    try:
        day = date.fromisoformat(str(record.get("unavailabilityDate")))
    except ValueError:
        return None
    midnight = int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())
    return midnight, midnight + DAY
