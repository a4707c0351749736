"""The spec data mode for the pay and leave domain: pay rates, pay rule policies, time-off
balances and scheduler unavailabilities drawn from their schemas by
:class:`~emulator.spec_records.SpecData`. Only the structural fields are set here: each pay rate
item's ``userId`` and ``effectiveDate`` (unique per user, within 100 days before the anchor), the
policies' ``id``, each balance's ``userId`` and ``policyId`` (unique per policy type), each
unavailability's ``id`` and ``unavailabilityDate`` (within the shift window)."""

from __future__ import annotations

from ...protocols import Account
from ...spec_records import SpecData
from .data import PayLeave, pay_rate_users

PAY_RATE = "PayRateResponse"
PAY_RULE_POLICY = "PayRulePolicy"
BALANCE = "TimeOffUserBalance"
UNAVAILABILITY = "SchedulerUnavailabilityResponse"


def spec(gen: SpecData, account: Account) -> PayLeave:
    """Pay and leave records of a spec-data account (see the module docstring), over all its
    users (``[1]`` when none), policy types and schedulers; its pay rates become the ones the
    timesheets price with (``account.operations.pay_rates``)."""
    config, ops = account.config.operations, account.operations
    users = list(account.users) or [1]
    policy_types, scheduler_ids = ops.policy_types, list(account.schedulers)
    out = PayLeave()
    items = pay_rate_users(config, users)
    needed = sum(v for _, v in items)
    for user, versions in items:
        days = sorted({gen.day(100, 0).isoformat() for _ in range(versions)})
        for day in days:
            rate = gen.record(PAY_RATE, "pay_rates", f"{user}:{day}", {"effectiveDate": day},
                              needed)  # fmt: skip
            out.pay_rates.append({"userId": user, "payRate": rate})
    out.pay_rule_policies = [
        gen.record(PAY_RULE_POLICY, "pay_rule_policies", 7100 + k, {"id": 7100 + k},
                   config.pay_rule_policies)
        for k in range(config.pay_rule_policies)
    ]  # fmt: skip
    for n, policy_type in enumerate(policy_types):
        count = config.time_off_balances if config.time_off_balances is not None else len(users)
        rows = []
        for k in range(count):
            user = users[k % len(users)] + (k // len(users)) * 1_000_000
            structural = {"userId": user, "policyId": f"pol-{n}"}
            rows.append(gen.record(BALANCE, "time_off_balances", f"pol-{n}:{user}",
                                   structural, count))  # fmt: skip
        out.balances[str(policy_type.get("id"))] = rows
    for k in range(config.unavailabilities if scheduler_ids else 0):
        sid = scheduler_ids[k % len(scheduler_ids)]
        key = f"un-{sid}-{k:05d}"
        structural = {"id": key, "unavailabilityDate": gen.day(20, 30).isoformat()}
        record = gen.record(UNAVAILABILITY, "scheduler_unavailabilities", key, structural,
                            config.unavailabilities)  # fmt: skip
        out.unavailabilities.setdefault(sid, []).append(record)
    for sid in scheduler_ids:
        out.unavailabilities.setdefault(sid, [])
    ops.pay_rates = out.pay_rates
    return out
