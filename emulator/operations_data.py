"""Seeded operations data of the emulated account: time clocks and their time activities,
timesheet totals, form submissions, jobs, time-off requests, task boards and tasks, and user
custom field definitions.

Records follow the provider's OpenAPI schemas (``TimeClock``, ``UserTimeActivity`` with
``ShiftActivityResponse``/``ManualBreakActivityResponse``/``TimeOffActivityResponse``,
``UserHoursSummaryResponse``, ``FormSubmissionResponse``, ``BaseJobResponse``,
``TimeOffRequestCreateResponse``, ``TasksBoard``/``ResponseTask``,
``CustomFieldSettingsResponse``). Timestamps are UTC epoch seconds; dates ``YYYY-MM-DD``.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from .config import OperationsConfig
from .operations_records import (
    ACTIVITY_ZONES,
    AUTO_CLOCK_OUT_MODES,
    DAY,
    MANUAL_BREAKS,
    POLICY_TYPES,
    TASK_BOARD_BASE,
    TIME_CLOCK_BASE,
    activity_point,
    custom_field_definition,
    form_submission,
    job_record,
    task_record,
    time_off_request,
)
from .timesheet import daily_records, hourly_rate_of, near_window

__all__ = ["REMOVABLE_OPERATIONS", "TASK_BOARD_BASE", "TIME_CLOCK_BASE", "Operations",
           "OperationsConfig"]  # fmt: skip

REMOVABLE_OPERATIONS = ("jobs", "time_off_requests", "time_clocks", "task_boards", "tasks",
                        "user_custom_field_definitions")  # fmt: skip
"""Operations streams :meth:`Operations.remove` deletes records from."""


@dataclass
class Operations:
    """The operations records, by parent where the API lists them per parent (the records of
    the stream domains are the dataset's: :mod:`emulator.domains`)."""

    time_clocks: dict[int, dict[str, Any]] = field(default_factory=dict)
    activities: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """Per time clock: ``{"userId", "kind" (shifts|manualBreaks|timeOffs), "record"}``, and
    ``"group"`` (the activity's number) shared by the activities of one working pattern (a shift
    split by a mobile break: shift, break, shift; an API break inside a shift)."""
    manual_breaks: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """Per time clock: its manual-break policies (``ManualBreakResponse``)."""
    overnight_split_clocks: set[int] = field(default_factory=set)
    """Time clocks set to count an overnight shift's hours past local midnight on the next day
    (a setting the API does not expose; their timesheets show it: :mod:`emulator.timesheet`)."""
    punch_assignments: dict[str, tuple[int, str, int]] = field(default_factory=dict)
    """Shift punch id -> ``(schedulerId, base shift id, userId)`` of the published assignment
    the emulator made the punch for (:func:`emulator.attendance.tie_punches_to_shifts`)."""
    planned_shifts: dict[tuple[str, int], tuple[float, date]] = field(default_factory=dict)
    """``(base shift id, userId)`` -> ``(planned hours, local day)`` of each assignment a punch
    was made for: the timesheet's ``dailyScheduledDetails`` on the clock of its punch."""
    form_submissions: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    jobs: list[dict[str, Any]] = field(default_factory=list)
    policy_types: list[dict[str, Any]] = field(default_factory=list)
    time_off_requests: list[dict[str, Any]] = field(default_factory=list)
    task_boards: dict[int, dict[str, Any]] = field(default_factory=dict)
    tasks: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    custom_fields: list[dict[str, Any]] = field(default_factory=list)
    pay_rates: list[dict[str, Any]] = field(default_factory=list)
    """``PayRateByUserResponse`` items the timesheets price their pay items with: the pay and
    leave domain's own list (:mod:`emulator.domains.pay_leave`), set by its data step; empty
    without it."""
    spec_timesheets: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """Spec data mode: per time clock, timesheet answers drawn from the spec (served filtered
    by date instead of derived from the activities)."""

    @classmethod
    def generate(
        cls,
        config: OperationsConfig,
        seed: int,
        anchor: int,
        user_ids: list[int],
        forms: dict[int, dict[str, Any]],
        custom_fields: list[tuple[int, str, str]],
    ) -> Operations:
        """Deterministic data for ``seed`` and ``anchor`` (UTC epoch seconds) over the account's
        users (``user_ids``, ``[1]`` when none) and forms, with the users' ``custom_fields``
        definitions (``(id, name, type)``)."""
        rng = random.Random(seed * 7919 + 13)
        ops = cls()
        users = user_ids or [1]
        ops._add_jobs(rng, config)
        ops._add_time_clocks(config)
        ops._add_activities(rng, config, anchor, users)
        for form_id in forms:
            ops.form_submissions[form_id] = [
                form_submission(rng, form_id, k + 1, anchor, users, forms[form_id])
                for k in range(config.form_submissions)
            ]
            ops.form_submissions[form_id].sort(key=lambda s: s["submissionTimestamp"])
        ops.policy_types = policy_types()
        ops.time_off_requests = [
            time_off_request(rng, k, anchor, users) for k in range(config.time_off_requests)
        ]
        ops._add_task_boards(rng, config, anchor, users)
        ops.custom_fields = [
            custom_field_definition(cid, name, kind) for cid, name, kind in custom_fields
        ]
        ops.custom_fields += [
            custom_field_definition(900 + k, f"Extra field {k}", "str")
            for k in range(config.extra_custom_fields)
        ]
        return ops

    def _add_time_clocks(self, config: OperationsConfig) -> None:
        """``config.time_clocks`` clocks from :data:`TIME_CLOCK_BASE` (the last archived when
        there are three or more; every "Warehouse clock" counts overnight hours past midnight
        on the next day), each with no activities yet and the usual break policies."""
        for i in range(config.time_clocks):
            clock_id = TIME_CLOCK_BASE + i
            archived = config.time_clocks >= 3 and i == config.time_clocks - 1
            self.time_clocks[clock_id] = {
                "id": clock_id,
                "name": ["Main site", "Warehouse clock", "Old kiosk"][i % 3] + f" {clock_id}",
                "isArchived": archived,
            }
            self.activities[clock_id] = []
            self.manual_breaks[clock_id] = [dict(policy) for policy in MANUAL_BREAKS]
            if i % 3 == 1:
                self.overnight_split_clocks.add(clock_id)

    def _add_activities(
        self, rng: random.Random, config: OperationsConfig, anchor: int, users: list[int]
    ) -> None:
        """Exactly ``config.time_activities`` activities (in working-pattern groups), the
        clocks taking turns; none without clocks."""
        n = 0
        while n < (config.time_activities if self.time_clocks else 0):
            clock_id = TIME_CLOCK_BASE + n % len(self.time_clocks)
            group = self._activity(rng, n, anchor, config, users)
            group = group[: config.time_activities - n]  # exactly config.time_activities
            self.activities[clock_id] += group
            n += len(group)

    def _add_task_boards(
        self, rng: random.Random, config: OperationsConfig, anchor: int, users: list[int]
    ) -> None:
        """``config.task_boards`` boards from :data:`TASK_BOARD_BASE` with ``config.tasks``
        tasks each."""
        for b in range(config.task_boards):
            board_id = TASK_BOARD_BASE + b
            self.task_boards[board_id] = {
                "id": board_id,
                "name": ["Daily tasks", "Maintenance", "Projects"][b % 3],
                "isArchived": False,
            }
            self.tasks[board_id] = [
                task_record(rng, board_id, k, anchor, users) for k in range(config.tasks)
            ]

    def _add_jobs(self, rng: random.Random, config: OperationsConfig) -> None:
        for j in range(config.jobs):
            job_id = f"job-{j + 1:03d}"
            subs = [
                job_record(rng, f"{job_id}-{s + 1}", f"Task {s + 1}", parent=job_id)
                for s in range(rng.choice([0, 0, 1, 2]))
            ]
            job = job_record(
                rng, job_id, ["Cleaning", "Cashier", "Stock", "Delivery", "Prep"][j % 5]
            )
            job["isDeleted"] = j % 6 == 5
            job["subJobs"] = subs or None
            self.jobs.append(job)

    def job_choices(self) -> list[tuple[str, str | None]]:
        """``(jobId, subJobId or None)`` pairs punches can be made on (live jobs only)."""
        pairs: list[tuple[str, str | None]] = []
        for job in self.jobs:
            if job["isDeleted"]:
                continue
            pairs.append((job["jobId"], None))
            pairs += [(job["jobId"], sub["jobId"]) for sub in job["subJobs"] or []]
        return pairs

    def _activity(
        self, rng: random.Random, n: int, anchor: int, config: OperationsConfig, users: list[int]
    ) -> list[dict[str, Any]]:
        """The activities of the ``n``-th pattern, on one clock: a shift (two in three), a shift
        split by a mobile break (shift, break, shift: ``isSwitchFromShift`` then
        ``isResumeShift``), an API break inside a shift, a standalone break or a time off."""
        user = rng.choice(users)
        zone = rng.choice(ACTIVITY_ZONES)
        day = anchor - rng.randint(1, max(1, config.activity_days)) * DAY
        roll = rng.random()
        start = day + rng.randint(5, 14) * 3600 + rng.choice([0, 15, 30, 45]) * 60
        end = start + rng.randint(3, 10) * 3600 + rng.choice([0, 30]) * 60
        items: list[tuple[str, dict[str, Any]]]
        if roll < 0.66:
            items = [("shifts", self._shift(rng, start, end, zone))]
        elif roll < 0.74:  # a mobile break: the shift closes, the return opens a new one
            policy = rng.choice(MANUAL_BREAKS)
            pause = start + (end - start) // 2 // 900 * 900
            back = pause + int(policy["duration"]) * 60
            first = self._shift(rng, start, pause, zone)
            second = {**self._shift(rng, back, end + (back - pause), zone),
                      "jobId": first.get("jobId")}  # fmt: skip
            second.pop("subJobId", None)
            if "subJobId" in first:
                second["subJobId"] = first["subJobId"]
            items = [("shifts", first),
                     ("manualBreaks", _break(pause, back, zone, str(policy["id"]))),
                     ("shifts", second)]  # fmt: skip
        elif roll < 0.80:  # an API-created break inside a shift (isSplitShiftOnManualBreak false)
            policy = rng.choice(MANUAL_BREAKS)
            pause = start + 2 * 3600
            items = [("shifts", self._shift(rng, start, end, zone)),
                     ("manualBreaks", _break(pause, pause + int(policy["duration"]) * 60, zone,
                                             str(policy["id"])))]  # fmt: skip
        elif roll < 0.90:  # a break taken while idle (no shift open)
            pause = day + rng.randint(10, 15) * 3600
            items = [("manualBreaks", _break(pause, pause + rng.choice([15, 30, 45]) * 60, zone,
                                             str(rng.choice(MANUAL_BREAKS)["id"])))]  # fmt: skip
        else:
            items = [("timeOffs", {
                "start": activity_point(day, zone),
                "end": activity_point(day + 8 * 3600, zone),
                "createdAt": day - 7 * DAY,
                "modifiedAt": day - 6 * DAY,
                "policyTypeId": rng.choice(POLICY_TYPES)[0],
                "duration": {"value": 8, "units": "hours"},
                "isAllDay": True,
            })]  # fmt: skip
        return [
            {"userId": user, "kind": kind, "group": n,
             "record": {"id": f"ta-{n + k + 1:06d}", **record}}
            for k, (kind, record) in enumerate(items)
        ]  # fmt: skip

    def _shift(self, rng: random.Random, start: int, end: int, zone: str) -> dict[str, Any]:
        """A ``ShiftActivityResponse`` (without its id) on a live job, auto clocked out one time
        in twelve."""
        job_id, sub_job_id = rng.choice(self.job_choices() or [("job-001", None)])
        auto = rng.random() < 0.08
        end_point = activity_point(end, zone)
        if auto:
            end_point["source"] = {"type": "autoClockOut", "mode": rng.choice(AUTO_CLOCK_OUT_MODES)}
        record: dict[str, Any] = {
            "start": activity_point(start, zone),
            "end": end_point,
            "createdAt": start,
            "modifiedAt": end + rng.randint(0, 3600),
            "jobId": job_id,
            "isAutoClockOut": auto,
            "shiftAttachments": [],
        }
        if sub_job_id:
            record["subJobId"] = sub_job_id
        return record

    def remove(self, stream: str, count: int, rng: random.Random) -> list[Any]:
        """Delete ``count`` records of ``stream`` (one of :data:`REMOVABLE_OPERATIONS`), drawn
        with ``rng``, as the provider would stop listing them: a job with its sub-jobs, a time
        clock with its activities, a task board with its tasks.

        Returns:
            The removed records' ids (for tasks ``[taskBoardId, id]``).

        Raises:
            ValueError: ``stream`` is not removable.
        """
        if stream == "jobs":
            picked = rng.sample(range(len(self.jobs)), min(count, len(self.jobs)))
            gone = [self.jobs[i]["jobId"] for i in sorted(picked)]
            self.jobs = [j for j in self.jobs if j["jobId"] not in gone]
            return gone
        if stream == "time_off_requests":
            ids = sorted(r["id"] for r in self.time_off_requests)
            gone = rng.sample(ids, min(count, len(ids)))
            self.time_off_requests = [r for r in self.time_off_requests if r["id"] not in gone]
            return gone
        if stream == "user_custom_field_definitions":
            ids = sorted(f["id"] for f in self.custom_fields)
            gone = rng.sample(ids, min(count, len(ids)))
            self.custom_fields = [f for f in self.custom_fields if f["id"] not in gone]
            return gone
        if stream == "tasks":
            keys = sorted((b, t["id"]) for b, tasks in self.tasks.items() for t in tasks)
            doomed = rng.sample(keys, min(count, len(keys)))
            for board, task_id in doomed:
                self.tasks[board] = [t for t in self.tasks[board] if t["id"] != task_id]
            return [list(k) for k in doomed]
        parents: dict[str, tuple[dict[int, Any], dict[int, Any]]] = {
            "time_clocks": (self.time_clocks, self.activities),
            "task_boards": (self.task_boards, self.tasks),
        }
        if stream not in parents:
            raise ValueError(f"cannot remove {stream!r}; choose from {REMOVABLE_OPERATIONS}")
        records, children = parents[stream]
        gone = rng.sample(sorted(records), min(count, len(records)))
        for key in gone:
            del records[key]
            children.pop(key, None)
        return gone

    # -- listings as the API answers them --------------------------------------------------------

    def time_activities(self, clock_id: int, first: date, last: date) -> list[dict[str, Any]]:
        """``timeActivitiesByUsers`` of one clock for activities starting on ``first..last``
        (UTC dates, inclusive), users in id order."""
        lo = int(datetime(first.year, first.month, first.day, tzinfo=UTC).timestamp())
        hi = int(datetime(last.year, last.month, last.day, tzinfo=UTC).timestamp()) + DAY
        by_user: dict[int, dict[str, list[dict[str, Any]]]] = defaultdict(
            lambda: {"shifts": [], "manualBreaks": [], "timeOffs": []}
        )
        for item in self.activities.get(clock_id, []):
            if lo <= item["record"]["start"]["timestamp"] < hi:
                by_user[item["userId"]][item["kind"]].append(item["record"])
        return [{"userId": user, **by_user[user]} for user in sorted(by_user)]

    def timesheet(self, clock_id: int, first: date, last: date) -> list[dict[str, Any]]:
        """``users`` of the timesheet totals for local days ``first..last``: per user and day,
        the totals and pay items of the clock's own activities by the provider's rule
        (:mod:`emulator.timesheet`); in spec data mode the drawn answers' daily records dated
        ``first..last``."""
        if clock_id in self.spec_timesheets:
            lo, hi = first.isoformat(), last.isoformat()
            return [
                {**user, "dailyRecords": [d for d in user["dailyRecords"] if lo <= d["date"] <= hi]}
                for user in self.spec_timesheets[clock_id]
            ]
        paid = {str(p["id"]): bool(p.get("isPaid")) for p in self.manual_breaks.get(clock_id, [])}
        rate_of = hourly_rate_of(self.pay_rates)
        items = self.activities.get(clock_id, [])
        # the day totals from the activities near the window; the planned shifts of every
        # punch (an open one too), as a planned shift's day need not be its punch's
        return daily_records(
            near_window(items, first, last), paid, rate_of, first, last, self._planned(items),
            split_at_midnight=clock_id in self.overnight_split_clocks,
        )  # fmt: skip

    def _planned(self, items: list[dict[str, Any]]) -> dict[tuple[int, date], dict[str, float]]:
        """``(userId, local day) -> {base shift id: planned hours}`` of the assignments the
        clock's punches (``items``) were made for."""
        planned: dict[tuple[int, date], dict[str, float]] = defaultdict(dict)
        for item in items:
            shift_id = item["record"].get("schedulerShiftId")
            found = self.planned_shifts.get((str(shift_id), item["userId"]))
            if item["kind"] == "shifts" and found is not None:
                hours, day = found
                planned[(item["userId"], day)][str(shift_id)] = hours
        return planned


def _break(start: int, end: int, zone: str, policy: str) -> dict[str, Any]:
    """A ``ManualBreakActivityResponse`` (without its id) of policy ``policy``."""
    return {
        "start": activity_point(start, zone),
        "end": activity_point(end, zone),
        "createdAt": start,
        "modifiedAt": end,
        "manualBreakId": policy,
        "isAutoClockOut": False,
    }


def policy_types() -> list[dict[str, Any]]:
    """The account's time-off policy types (:data:`POLICY_TYPES`), each with one default
    policy counted in days."""
    return [
        {
            "id": pid,
            "name": name,
            "policies": [
                {
                    "id": f"{pid}-default",
                    "name": f"{name} (default)",
                    "unit": "days",
                    "accrualType": "fixed",
                }
            ],
        }
        for pid, name in POLICY_TYPES
    ]
