"""The emulator's timesheet totals (``GET /time-clock/v1/time-clocks/{timeClockId}/timesheet``),
derived from one time clock's own time activities by the provider's rule as the spec describes it:

* a shift activity is worked time; a manual break is its own interval. A break taken from the
  mobile app closes the open shift and the return opens a new one (``ManualBreakClockInResponse
  .isSwitchFromShift``, ``ManualBreakClockOutRequest.isResumeShift``), so such a break lies
  *between* two shift activities; a break created through the API with
  ``isSplitShiftOnManualBreak=false`` (the default) can lie *inside* a shift;
* a shift's work hours are its length minus the time breaks overlap it (work is never negative);
* a break's hours are paid or unpaid by its policy (``ManualBreakResponse.isPaid`` of the clock's
  ``manualBreakId``); a break counts on the local day of the shift it overlaps (the earliest
  starting one), else on its own start's;
* ``dailyTotalWorkHours``, ``dailyTotalPaidBreakHours``, ``dailyTotalUnpaidBreakHours`` sum those
  per user and local day of the start (the punch's own timezone: its start's, else its end's);
  a clock set to count overnight hours past midnight on the next day (``endDate``: "if it has
  been configured in the time clock settings") counts each local day's part of a shift on that
  day, and a break on the day of the part it overlaps;
  ``dailyTotalHours`` is the day's paid time: work plus paid breaks;
* ``payItems``: the day's paid hours at the user's hourly default rate in effect that day, the
  first 8 hours under the regular rule and the rest under daily overtime at 1.5 times the rate
  (``actualPayRate``, ``totalPay`` = hours x rate, to the cent); without an hourly rate the items
  carry hours and rule only (``actualPayRate`` and ``totalPay`` are optional in the spec);
* ``dailyScheduledDetails``: the planned hours of the scheduled shifts the day's punches on this
  clock were made for (a shift's length less its unpaid breaks), their count and ids, and the
  day's paid hours less them.

Open activities (no end), activities whose times are not epoch seconds of years 1..9999, time
offs, and activities whose timezone is no IANA name (their day cannot be placed; they still
overlap others) count nowhere. The same rule is what the dbt models apply
(``int_time_activities__paid_time``): the demo reconciles the two.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

UTC_ZONE = ZoneInfo("UTC")

REGULAR_HOURS = 8.0
"""Paid hours a day under the regular pay rule; beyond them, daily overtime."""
OVERTIME_FACTOR = 1.5
REGULAR_RULE = {"id": "pr-regular", "code": "REG", "type": "regular"}
OVERTIME_RULE = {"id": "pr-daily-overtime", "code": "OT", "type": "dailyOvertime"}

RateOf = Callable[[int, date], float | None]
"""``(userId, local date) -> hourly rate`` in effect, or ``None`` (no hourly rate)."""


SPLIT_MAX_DAYS = 7
"""A shift spanning more local days than this is never split at midnight (the models' var
``punch_split_max_days``)."""

EPOCH_RANGE = (-62_135_596_800, 253_402_300_799)
"""Epoch seconds of years 1..9999: the times a timesheet can place (0, "never", is none)."""


def _timed(record: dict[str, Any]) -> bool:
    """Whether an activity has a start and an end the provider could have recorded: integer
    epoch seconds of years 1..9999, not 0 (drawn spec data may hold anything)."""
    stamps = [(record.get(p) or {}).get("timestamp") if isinstance(record.get(p), dict) else None
              for p in ("start", "end")]  # fmt: skip
    return all(
        isinstance(t, int) and not isinstance(t, bool) and t != 0
        and EPOCH_RANGE[0] <= t <= EPOCH_RANGE[1]
        for t in stamps
    )  # fmt: skip


def _local_day(record: dict[str, Any]) -> date | None:
    """The local day of an activity's start in its timezone (:func:`_zone`); ``None`` when
    neither is an IANA zone name."""
    zone = _zone(record)
    if zone is None:
        return None
    try:
        return datetime.fromtimestamp(record["start"]["timestamp"], zone).date()
    except (ValueError, OSError, OverflowError, KeyError):
        return None


def _hours(seconds: float) -> float:
    return seconds / 3600.0


def _overlap_span(lo: int, hi: int, record: dict[str, Any]) -> int:
    """Seconds the span ``lo..hi`` (epoch seconds) and an ended activity record overlap."""
    return max(0, min(hi, record["end"]["timestamp"]) - max(lo, record["start"]["timestamp"]))


def _new_day(day: date, approved: bool, locked: bool) -> dict[str, Any]:
    return {
        "date": day.isoformat(),
        "dailyTotalHours": 0.0,
        "dailyTotalWorkHours": 0.0,
        "dailyTotalPaidBreakHours": 0.0,
        "dailyTotalUnpaidBreakHours": 0.0,
        "isApproved": approved,
        "isSubmitted": True,
        "isLocked": locked,
        "payItems": [],
        "records": [],
    }


def pay_items(paid_hours: float, rate: float | None) -> list[dict[str, Any]]:
    """A day's ``payItems`` for ``paid_hours`` at hourly ``rate`` (see the module docstring)."""
    parts = [(min(paid_hours, REGULAR_HOURS), REGULAR_RULE, 1.0)]
    if paid_hours > REGULAR_HOURS:
        parts.append((paid_hours - REGULAR_HOURS, OVERTIME_RULE, OVERTIME_FACTOR))
    items = []
    for hours, rule, factor in parts:
        item: dict[str, Any] = {"hours": round(hours, 4), "payRule": dict(rule)}
        if rate is not None:
            item["actualPayRate"] = round(rate * factor, 4)
            item["totalPay"] = round(hours * rate * factor, 2)
        items.append(item)
    return items


def near_window(items: list[dict[str, Any]], first: date, last: date) -> list[dict[str, Any]]:
    """The ended activities of ``items`` (``{"userId", "kind", "record"}``) that can touch the
    totals of local days ``first..last``, in their order: those within two days plus twice the
    longest activity of the window's UTC bounds. A day's totals come from shift parts on it,
    the breaks overlapping them, and those breaks' other hosts; each is within one activity's
    length of the one before, so :func:`daily_records` of these equals that of all ``items``
    for those days, without reading a year of activities for every window."""
    ended = [i for i in items if i["kind"] != "timeOffs" and _timed(i["record"])]
    if not ended:
        return []
    longest = max(i["record"]["end"]["timestamp"] - i["record"]["start"]["timestamp"]
                  for i in ended)  # fmt: skip
    pad = 2 * 86_400 + 2 * max(longest, 0)
    lo = int(datetime.combine(first, time(), UTC_ZONE).timestamp()) - pad
    hi = int(datetime.combine(last + timedelta(days=1), time(), UTC_ZONE).timestamp()) + pad
    return [
        i for i in ended
        if i["record"]["end"]["timestamp"] >= lo and i["record"]["start"]["timestamp"] <= hi
    ]  # fmt: skip


def daily_records(
    items: list[dict[str, Any]],
    paid_policies: dict[str, bool],
    rate_of: RateOf,
    first: date,
    last: date,
    planned: dict[tuple[int, date], dict[str, float]] | None = None,
    split_at_midnight: bool = False,
) -> list[dict[str, Any]]:
    """``users`` of one clock's timesheet answer for local days ``first..last``.

    Args:
        items: The clock's activities, ``{"userId", "kind", "record"}``.
        paid_policies: ``manualBreakId -> isPaid`` of the clock's policies (a break naming no
            policy counts as unpaid).
        rate_of: The hourly rate in effect per user and day.
        first: First local day (inclusive).
        last: Last local day (inclusive).
        planned: ``(userId, local day) -> {shift id: planned hours}`` of the scheduled shifts the
            clock's punches were made for: each day's ``dailyScheduledDetails`` (zero planned
            hours on a day with none); ``None``: no details.
        split_at_midnight: The clock counts an overnight shift's hours past local midnight on
            the next day (a time clock setting the API does not expose).

    Returns:
        ``[{"userId", "dailyRecords": [DailyRecordResponse]}]``, users and days in order.
    """
    ended = [i for i in items if i["kind"] != "timeOffs" and _timed(i["record"])]
    shifts: dict[int, list[dict[str, Any]]] = defaultdict(list)
    breaks: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for item in ended:
        (shifts if item["kind"] == "shifts" else breaks)[item["userId"]].append(item["record"])
    days = day_totals(shifts, breaks, paid_policies, split_at_midnight)
    users: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for (user, local), record in sorted(days.items()):
        if not first <= local <= last:
            continue
        for name in ("dailyTotalWorkHours", "dailyTotalPaidBreakHours",
                     "dailyTotalUnpaidBreakHours"):  # fmt: skip
            record[name] = round(record[name], 4)
        paid_hours = round(record["dailyTotalWorkHours"] + record["dailyTotalPaidBreakHours"], 4)
        record["dailyTotalHours"] = paid_hours
        record["payItems"] = pay_items(paid_hours, rate_of(user, local)) if paid_hours > 0 else []
        if planned is not None:
            shifts_of_day = planned.get((user, local), {})
            hours = round(sum(shifts_of_day.values()), 4)
            record["dailyScheduledDetails"] = {
                "dailyScheduledHours": hours,
                "dailyScheduledDifferenceHours": round(paid_hours - hours, 4),
                "dailyScheduledShifts": len(shifts_of_day),
                "shifts": [{"id": shift_id} for shift_id in sorted(shifts_of_day)],
            }
        users[user].append(record)
    return [{"userId": user, "dailyRecords": records} for user, records in users.items()]


Part = tuple[date | None, int, int]
"""``(local day or None, start, end)``: epoch seconds of the part of an activity on one day."""


def day_parts(record: dict[str, Any], split_at_midnight: bool) -> list[Part]:
    """``(local day, start, end)`` epoch-second parts of an ended activity: one, the whole of it
    on its start's day, unless ``split_at_midnight`` (a clock that counts an overnight shift's
    hours past midnight on the next day, the spec's timesheet ``endDate``), where each local day
    of its timezone holds its own part (up to :data:`SPLIT_MAX_DAYS` days; longer: one part)."""
    start, end = record["start"]["timestamp"], record["end"]["timestamp"]
    first = _local_day(record)
    zone = _zone(record)
    if not split_at_midnight or first is None or zone is None or end <= start:
        return [(first, start, end)]
    last = datetime.fromtimestamp(end - 1, zone).date()
    if not 1 <= (last - first).days < SPLIT_MAX_DAYS:
        return [(first, start, end)]
    parts: list[Part] = []
    for offset in range((last - first).days + 1):
        day = first + timedelta(days=offset)
        lo = int(datetime.combine(day, time(), zone).timestamp())
        hi = int(datetime.combine(day + timedelta(days=1), time(), zone).timestamp())
        parts.append((day, max(start, lo), min(end, hi)))
    return parts


def _zone(record: dict[str, Any]) -> ZoneInfo | None:
    """The activity's timezone: its start's, else its end's; ``None`` when neither is an IANA
    zone name."""
    for point in (record["start"], record["end"]):
        try:
            return ZoneInfo(str(point.get("timezone")))
        except (ValueError, OSError, KeyError):
            continue
    return None


def day_totals(
    shifts: dict[int, list[dict[str, Any]]],
    breaks: dict[int, list[dict[str, Any]]],
    paid_policies: dict[str, bool],
    split_at_midnight: bool = False,
) -> dict[tuple[int, date], dict[str, Any]]:
    """The unrounded ``DailyRecordResponse`` of every ``(userId, local day)`` the ended
    ``shifts`` and ``breaks`` (activity records by user) fill: a shift's hours less the breaks
    inside it count on its start's local day (on a clock that ``split_at_midnight``, each
    day's part on its own day: :func:`day_parts`), a break's on its (first) host part's day or
    its own; activities no timezone places count nowhere."""
    days: dict[tuple[int, date], dict[str, Any]] = {}
    nowhere: dict[str, Any] = _new_day(date.min, False, False)  # a day no timezone places

    def day_of(user: int, day: date | None) -> dict[str, Any]:
        if day is None:
            return nowhere
        key = (user, day)
        if key not in days:
            days[key] = _new_day(day, day.toordinal() % 3 != 0, day.toordinal() % 5 == 0)
        return days[key]

    parts = {
        user: [(day, lo, hi, shift) for shift in records
               for day, lo, hi in day_parts(shift, split_at_midnight)]
        for user, records in shifts.items()
    }  # fmt: skip
    for user, user_parts in parts.items():
        for day, lo, hi, shift in user_parts:
            off = sum(_overlap_span(lo, hi, b) for b in breaks.get(user, []))
            totals = day_of(user, day)
            totals["dailyTotalWorkHours"] += _hours(max(0, hi - lo - off))
            if lo == shift["start"]["timestamp"]:
                totals["records"].append(_entry(shift))
    for user, records in breaks.items():
        for brk in records:
            hosts = sorted(
                (p for p in parts.get(user, []) if _overlap_span(p[1], p[2], brk) > 0),
                key=lambda p: (p[1], p[3]["id"]),
            )
            totals = day_of(user, hosts[0][0] if hosts else _local_day(brk))
            length = _hours(brk["end"]["timestamp"] - brk["start"]["timestamp"])
            paid = paid_policies.get(str(brk.get("manualBreakId")), False)
            totals["dailyTotalPaidBreakHours" if paid else "dailyTotalUnpaidBreakHours"] += length
    return days


def _entry(shift: dict[str, Any]) -> dict[str, Any]:
    """A ``ShiftEntryResponse`` of one shift activity."""
    resource = {"resourceId": shift.get("jobId")}
    if shift.get("subJobId"):
        resource["subResourceId"] = shift["subJobId"]
    return {
        "timeActivityId": shift["id"],
        "start": {"timestamp": shift["start"]["timestamp"], "timezone": shift["start"]["timezone"]},
        "end": {"timestamp": shift["end"]["timestamp"], "timezone": shift["end"]["timezone"]},
        "resources": [resource],
    }


def hourly_rate_of(pay_rates: list[dict[str, Any]]) -> RateOf:
    """``rate_of`` over ``PayRateByUserResponse`` items: the user's default rate of the latest
    ``effectiveDate`` on or before the day, when that record is hourly with a default rate."""
    by_user: dict[int, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
    for item in pay_rates:
        rate = item.get("payRate") or {}
        if isinstance(item.get("userId"), int) and isinstance(rate.get("effectiveDate"), str):
            by_user[item["userId"]].append((rate["effectiveDate"], rate))
    for versions in by_user.values():
        versions.sort(key=lambda v: v[0])

    def rate_of(user: int, day: date) -> float | None:
        today = day.isoformat()
        current = [rate for effective, rate in by_user.get(user, []) if effective <= today]
        if not current:
            return None
        rate = current[-1]
        value = rate.get("defaultRate")
        if rate.get("rateType") != "hourly" or not isinstance(value, int | float):
            return None
        return float(value)

    return rate_of
