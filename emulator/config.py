"""The size and seed of one emulated account: :class:`EmulatorConfig` and the operations part
of it, :class:`OperationsConfig`; and the emulator's "now" (:func:`now`)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

DAY = 86_400
NOW_VARIABLE = "WFM_SYNC_NOW"
"""The variable that pins the emulator's "now" (the project's pinned clock, read here at the
emulator's own edge: the emulator imports nothing of the product)."""


def now() -> float:
    """The emulator's "now", epoch seconds (UTC): the instant ``WFM_SYNC_NOW`` names (epoch
    seconds, or an ISO 8601 date or datetime, UTC when it has no offset), read at every call so
    a test that moves it moves the emulator; the real time when it is unset or blank.

    Raises:
        ValueError: ``WFM_SYNC_NOW`` is neither epoch seconds nor an ISO 8601 date or datetime
            (the message names the variable and the value).
    """
    raw = os.environ.get(NOW_VARIABLE, "").strip()
    if not raw:
        return time.time()
    try:
        return float(raw)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{NOW_VARIABLE}={raw!r} is not epoch seconds or an ISO date/datetime such as "
            "2026-12-20T00:00:00Z; unset it to use the real clock"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


@dataclass
class OperationsConfig:
    """Sizes of the operations data.

    Attributes:
        time_clocks: Time clocks (the last one archived when there are three or more).
        time_activities: Time activities in all (shifts ~80%, manual breaks, time offs).
        activity_days: Days before the anchor the activities spread over.
        form_submissions: Submissions per form.
        jobs: Top-level jobs (each with 0-2 sub-jobs; every 6th deleted).
        time_off_requests: Requests in all statuses.
        task_boards: Task boards.
        tasks: Tasks per board.
        extra_custom_fields: User custom field definitions beyond the account's usual eight.
        pay_rates: Pay rate items (user x effective date) in all; ``None``: 1.5 per active user.
        pay_rule_policies: Pay rule policies.
        time_off_balances: Balances per policy of each policy type; ``None``: one per active user.
        unavailabilities: Scheduler unavailabilities in all, spread over the schedulers.
        sales_locations: Sales locations (the last one inactive when there are three or more).
        sales_days_back: Days before the anchor's day with daily sales (actuals).
        sales_days_ahead: Days after it with daily sales (projections only).
        shift_layer_values: Values of each scheduler's Location shift layer (the first four
            named as the sales locations; :mod:`emulator.domains.shift_layers.data`).
        shift_custom_fields: Shift custom fields of each scheduler (a dropdown, then text).
        custom_field_categories: User custom-field categories.
        dropdown_options: Options each user dropdown field lists; ``None``: its own.
        attendance_share: Share of the past shifts that get a punch of their user while shift
            punches last (``schedulerShiftId``, times near the shift's: on time, late, leaving
            early); the rest are no-shows (:mod:`emulator.attendance`).
    """

    time_clocks: int = 2
    time_activities: int = 400
    activity_days: int = 60
    form_submissions: int = 12
    jobs: int = 8
    time_off_requests: int = 40
    task_boards: int = 2
    tasks: int = 30
    extra_custom_fields: int = 0
    pay_rates: int | None = None
    pay_rule_policies: int = 3
    time_off_balances: int | None = None
    unavailabilities: int = 60
    sales_locations: int = 3
    sales_days_back: int = 60
    sales_days_ahead: int = 14
    shift_layer_values: int = 4
    shift_custom_fields: int = 2
    custom_field_categories: int = 2
    dropdown_options: int | None = None
    attendance_share: float = 0.93


@dataclass
class EmulatorConfig:
    """Size and behaviour of one emulated account.

    Attributes:
        seed: Seed of the data generator.
        users: Number of users (active and archived).
        forms: Number of forms.
        schedulers: Number of schedulers (schedules).
        shifts: Number of V1 shift rows (one per assigned user, one per open shift) in all.
        anchor: The emulator's "now" for data generation, UTC epoch seconds (default: the UTC
            midnight of :func:`now`: the real date, or the ``WFM_SYNC_NOW`` setting).
        archived_fraction: Share of users that are archived.
        documents_fraction: Share of users holding user documents (one or two each).
        shift_days_back: Shifts start from ``anchor - shift_days_back`` days...
        shift_days_ahead: ...to ``anchor + shift_days_ahead`` days.
        operations: Sizes of time clocks, activities, submissions, jobs, time off, tasks.
        data: ``emulator`` (our seeded, tidy records) or ``spec`` (records drawn from the
            provider's JSON schemas, wilder than the spec: :mod:`emulator.spec_data`).
        spec_width: With ``data="spec"``: ``mixed`` (optional fields present or not) or ``wide``
            (every property present, long strings and lists).
        same_second_changes: Test mode: the changes of :meth:`Dataset.mutate` (and document
            entries) are stamped with the current second even when an earlier change already
            used it, so two changes can share a ``modifiedAt`` / ``updateTime`` as on the real
            provider. Off (default), every change gets a strictly later second.
    """

    seed: int = 42
    users: int = 200
    forms: int = 5
    schedulers: int = 3
    shifts: int = 2000
    anchor: int | None = None
    archived_fraction: float = 0.08
    documents_fraction: float = 0.3
    shift_days_back: int = 25
    shift_days_ahead: int = 85
    operations: OperationsConfig = field(default_factory=OperationsConfig)
    data: str = "emulator"
    spec_width: str = "mixed"
    same_second_changes: bool = False

    def resolved_anchor(self) -> int:
        """The anchor (UTC epoch seconds), defaulting to the UTC midnight of :func:`now`.

        Raises:
            ValueError: No anchor is set and ``WFM_SYNC_NOW`` is unreadable (:func:`now`).
        """
        if self.anchor is not None:
            return self.anchor
        return int(now()) // DAY * DAY


DEMO_USERS = 3000
"""Users of the account ``wfm-sync demo`` emulates (its ``--users`` default)."""

DEMO_SHIFTS = 30000
"""V1 shift rows of the account ``wfm-sync demo`` emulates (its ``--shifts`` default)."""


def demo_config(
    users: int = DEMO_USERS, shifts: int = DEMO_SHIFTS, anchor: int | None = None
) -> EmulatorConfig:
    """The account ``wfm-sync demo`` emulates (seed 42, 20 forms, 4 schedulers), with a punch
    for the past shifts but the no-shows (``time_activities`` 29/100 of ``shifts``, at least
    400) so ``fct_attendance`` has something to match. ``anchor``: as :class:`EmulatorConfig`
    (UTC epoch seconds; default the clock's midnight)."""
    # punches over the days the shifts cover: no day of punches without a schedule
    operations = OperationsConfig(
        time_activities=max(400, shifts * 29 // 100), activity_days=EmulatorConfig.shift_days_back
    )
    return EmulatorConfig(
        seed=42, users=users, forms=20, schedulers=4, shifts=shifts, operations=operations,
        anchor=anchor,
    )  # fmt: skip
