"""The emulator's operations endpoints answer as the provider's spec says: schemas, maxima,
required parameters, window limits (92/45/365 days inclusive) and 422s."""

from __future__ import annotations

import pytest
from test_emulator_spec import get, response_schema, spec_maximum, validate

from emulator.data import EmulatorConfig
from emulator.operations_data import OperationsConfig

CLOCK = "/time-clock/v1/time-clocks/7100"
WINDOW = {"startDate": "2026-09-01", "endDate": "2026-11-20"}
SHEET = {"startDate": "2026-10-10", "endDate": "2026-11-20"}
SHORT = {"startDate": "2026-01-01", "endDate": "2026-01-02"}


@pytest.fixture(scope="module")
def server():
    from conftest import ANCHOR, API_KEY

    from emulator import EmulatorServer, ServerOptions

    operations = OperationsConfig(time_activities=300, extra_custom_fields=3)
    config = EmulatorConfig(
        seed=5, users=60, forms=3, schedulers=1, shifts=10, anchor=ANCHOR, operations=operations
    )
    running = EmulatorServer(config, ServerOptions(api_key=API_KEY, minute_limit=10**6)).start()
    yield running
    running.stop()


@pytest.mark.parametrize(
    ("path", "template", "params"),
    [
        ("/time-clock/v1/time-clocks", None, {}),
        (CLOCK + "/time-activities", "{timeClockId}", WINDOW),
        (CLOCK + "/timesheet", "{timeClockId}", SHEET),
        ("/forms/v1/forms/500/form-submissions", "{formId}", {"limit": 100}),
        ("/jobs/v1/jobs", None, {"limit": 500}),
        ("/jobs/v1/jobs", None, {"includeDeleted": "false"}),
        ("/time-off/v1/requests", None,
         {"startDate": "2026-01-01", "endDate": "2026-12-31", "limit": 100,
          "statuses": ["approved", "pending", "denied"]}),
        ("/time-off/v1/policy-types", None, {}),
        ("/tasks/v1/taskboards", None, {}),
        ("/tasks/v1/taskboards/3100/tasks", "{taskBoardId}", {"limit": 100}),
        ("/users/v1/custom-fields", None, {"limit": 500}),
    ],
)  # fmt: skip
def test_operations_answers_validate_against_the_spec(server, path, template, params):
    response = get(server, path, params)
    assert response.status_code == 200, response.text
    spec_path = path
    if template:
        parts = path.split("/")
        spec_path = "/".join(template if p.isdigit() else p for p in parts)
    validate(response.json(), response_schema(spec_path))


def test_activities_and_timesheet_carry_every_kind(server):
    users = get(server, CLOCK + "/time-activities", WINDOW).json()["data"]["timeActivitiesByUsers"]
    kinds = {k for u in users for k in ("shifts", "manualBreaks", "timeOffs") if u[k]}
    assert kinds == {"shifts", "manualBreaks", "timeOffs"}
    modes = {s["end"]["source"].get("mode") for u in users for s in u["shifts"]}
    assert modes - {None}  # some auto clock-outs with their AutoClockOutModeType
    sheet = get(server, CLOCK + "/timesheet", SHEET)
    days = [d for u in sheet.json()["data"]["users"] for d in u["dailyRecords"]]
    # every day holds a punch or a break (a day of breaks only: a break outside any punch)
    breaks = ("dailyTotalUnpaidBreakHours", "dailyTotalPaidBreakHours")
    assert days and all(d["records"] or any(d[b] > 0 for b in breaks) for d in days)
    assert sum(len(d["records"]) for d in days) > 20


@pytest.mark.parametrize(
    ("path", "days"),
    [(CLOCK + "/time-activities", 92), (CLOCK + "/timesheet", 45), ("/time-off/v1/requests", 365)],
)
def test_windows_are_limited_inclusively(server, path, days):
    from datetime import date, timedelta

    first = date(2026, 1, 1)
    fits = {"startDate": first.isoformat(), "endDate": (first + timedelta(days - 1)).isoformat()}
    wide = {"startDate": first.isoformat(), "endDate": (first + timedelta(days)).isoformat()}
    assert get(server, path, fits).status_code == 200
    refused = get(server, path, wide)
    assert refused.status_code == 422 and f"{days} days" in refused.text
    validate(refused.json(), {"$ref": "spec#/components/schemas/HTTPValidationError"})


@pytest.mark.parametrize(
    ("path", "params"),
    [
        (CLOCK + "/time-activities", {}),
        (CLOCK + "/time-activities", {"startDate": "2026-11-20", "endDate": "2026-11-01"}),
        (CLOCK + "/timesheet", {"startDate": "20261101", "endDate": "2026-11-02"}),
        ("/forms/v1/forms/500/form-submissions", {"limit": 101}),
        ("/jobs/v1/jobs", {"limit": 501}),
        ("/time-off/v1/requests", {**SHORT, "limit": 101}),
        ("/time-off/v1/requests", {**SHORT, "statuses": ["cancelled"]}),
        ("/tasks/v1/taskboards/3100/tasks", {"limit": 101}),
        ("/tasks/v1/taskboards/3100/tasks", {"status": "done"}),
        ("/users/v1/custom-fields", {"limit": 501}),
    ],
)  # fmt: skip
def test_operations_invalid_parameters_are_422(server, path, params):
    response = get(server, path, params)
    assert response.status_code == 422, response.text
    validate(response.json(), {"$ref": "spec#/components/schemas/HTTPValidationError"})


def test_page_maxima_equal_the_spec():
    expected = {
        "/forms/v1/forms/{formId}/form-submissions": 100,
        "/jobs/v1/jobs": 500,
        "/time-off/v1/requests": 100,
        "/tasks/v1/taskboards/{taskBoardId}/tasks": 100,
        "/users/v1/custom-fields": 500,
    }
    for path, maximum in expected.items():
        assert spec_maximum(path) == maximum, path


def test_a_clock_that_splits_at_midnight_counts_each_days_part_on_its_day():
    """The spec's timesheet endDate: an overnight shift's hours past midnight count on the next
    day "if it has been configured in the time clock settings". Hand-computed: 22:00-06:00
    London from 3 March 2026 with an unpaid break 02:00-02:30, at 20/h: a clock that splits
    pays 2 h (40.00) on 3 March and 5.5 h (110.00) on 4 March, the break on 4 March; one that
    does not pays 7.5 h (150.00) on 3 March. Both total 150.00."""
    from datetime import UTC, date, datetime

    from emulator.timesheet import daily_records

    def point(iso: str) -> dict[str, object]:
        stamp = int(datetime.fromisoformat(iso).replace(tzinfo=UTC).timestamp())
        return {"timestamp": stamp, "timezone": "Europe/London"}

    shift = {"id": "s1", "jobId": "j1", "start": point("2026-03-03T22:00"),
             "end": point("2026-03-04T06:00")}  # fmt: skip
    brk = {"id": "b1", "manualBreakId": "lunch", "start": point("2026-03-04T02:00"),
           "end": point("2026-03-04T02:30")}  # fmt: skip
    items = [{"userId": 1, "kind": "shifts", "record": shift},
             {"userId": 1, "kind": "manualBreaks", "record": brk}]  # fmt: skip

    def days(split: bool) -> list[tuple[str, float, float, float]]:
        (user,) = daily_records(
            items, {"lunch": False}, lambda user, day: 20.0, date(2026, 3, 1),
            date(2026, 3, 9), split_at_midnight=split,
        )  # fmt: skip
        return [
            (d["date"], d["dailyTotalWorkHours"], d["dailyTotalUnpaidBreakHours"],
             sum(item["totalPay"] for item in d["payItems"]))
            for d in user["dailyRecords"]
        ]  # fmt: skip

    assert days(True) == [("2026-03-03", 2.0, 0.0, 40.0), ("2026-03-04", 5.5, 0.5, 110.0)]
    assert days(False) == [("2026-03-03", 7.5, 0.5, 150.0)]


def test_a_timesheet_window_reads_only_the_activities_near_it_and_answers_the_same():
    """A window's answer is computed from the activities near it (``near_window``): for every
    clock (one of them splits at midnight) and windows of 1 to 45 days across a year, it equals
    the answer computed from all of the clock's activities, including a ten-day shift that
    started before the window and hosts a break inside it."""
    from datetime import UTC, date, datetime, timedelta

    from conftest import ANCHOR

    from emulator.data import Dataset
    from emulator.operations_data import TIME_CLOCK_BASE
    from emulator.timesheet import daily_records, hourly_rate_of

    operations = OperationsConfig(time_clocks=2, time_activities=3000, activity_days=365)
    ops = Dataset.generate(EmulatorConfig(seed=3, users=30, anchor=ANCHOR,
                                          operations=operations)).operations  # fmt: skip
    split = TIME_CLOCK_BASE + 1
    assert split in ops.overnight_split_clocks

    def point(day: date, hour: int) -> dict[str, object]:
        stamp = int(datetime(day.year, day.month, day.day, hour, tzinfo=UTC).timestamp())
        return {"timestamp": stamp, "timezone": "Europe/London"}

    today = datetime.fromtimestamp(ANCHOR, UTC).date()
    long_start = today - timedelta(days=60)
    ops.activities[split] += [
        {"userId": 999, "kind": "shifts", "record": {
            "id": "long", "start": point(long_start, 8),
            "end": point(long_start + timedelta(days=10), 8)}},
        {"userId": 999, "kind": "manualBreaks", "record": {
            "id": "inside", "manualBreakId": "x", "start": point(long_start + timedelta(days=9), 3),
            "end": point(long_start + timedelta(days=9), 4)}},
    ]  # fmt: skip
    rate_of = hourly_rate_of(ops.pay_rates)
    windows = [(long_start + timedelta(days=9), 1), (long_start + timedelta(days=8), 3)]
    windows += [(today - timedelta(days=back), length)
                for back in range(0, 380, 37) for length in (1, 7, 45)]  # fmt: skip
    for clock in (TIME_CLOCK_BASE, split):
        items = ops.activities[clock]
        paid = {str(p["id"]): bool(p.get("isPaid")) for p in ops.manual_breaks[clock]}
        for first, length in windows:
            last = first + timedelta(days=length - 1)
            whole = daily_records(items, paid, rate_of, first, last, ops._planned(items),
                                  split_at_midnight=clock == split)  # fmt: skip
            assert ops.timesheet(clock, first, last) == whole, (clock, first, length)
    # the break counts on its host's day, the long shift's start, not on its own
    day_nine = long_start + timedelta(days=9)
    assert [u for u in ops.timesheet(split, day_nine, day_nine) if u["userId"] == 999] == []
    (mine,) = [u for u in ops.timesheet(split, long_start, long_start) if u["userId"] == 999]
    assert mine["dailyRecords"][0]["dailyTotalWorkHours"] == 239.0
