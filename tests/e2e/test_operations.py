"""The operations streams against the emulator: exact rows, request counts at the provider's
minimum, windows split at 92/45/365 days, deletions, re-runs that load nothing; and the
reconciliation of webhook time activities against the API on a hand-made case."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import orjson
import pytest
from conftest import point_at, query

from core.clock import now as clock_now
from emulator.operations_data import TIME_CLOCK_BASE, OperationsConfig
from inbox import Inbox, read_envelope
from inbox.store import ReceivedEvent
from pipelines import STREAMS, run_sync
from pipelines.fold import run_fold
from pipelines.models import build_models
from pipelines.status import collect_status
from sources.configuration import resolve
from sources.connecteam.registry import STREAMS as REGISTRY
from sources.connecteam.registry import Incremental
from sources.connecteam.windows import date_windows
from sources.webhooks.config import inbox_url_from_config

CLOCK = TIME_CLOCK_BASE
KEYS = {name: ", ".join(s.key) for name, s in REGISTRY.items() if name != "user_documents"}
"""Each raw table's primary key as SQL, from the stream registry (user documents: the
emulator's operations data holds none)."""

RECONCILED = "+fct_daily_hours +fct_time_activity_reconciliation"
"""The marts the reconciliation tests read, with their parents (a build of these only)."""


def today() -> date:
    """Today in the project's clock (``WFM_SYNC_NOW``, pinned by the suite), UTC."""
    return datetime.fromtimestamp(clock_now(), UTC).date()


def ops_server(start_emulator, **sizes):
    """An emulator whose operations data is sized by ``sizes`` (OperationsConfig fields)."""
    base = {"time_activities": 0, "form_submissions": 0, "jobs": 0, "time_off_requests": 0,
            "task_boards": 1, "tasks": 0}  # fmt: skip
    now_anchor = int(clock_now()) // 86_400 * 86_400
    return start_emulator(users=40, forms=1, schedulers=1, shifts=5, anchor=now_anchor,
                          operations=OperationsConfig(**{**base, **sizes}))  # fmt: skip


def test_windows_split_exactly_at_the_maxima():
    first = date(2026, 1, 1)
    for days, limit in ((92, 92), (45, 45), (365, 365)):
        exact = date_windows(first, first + timedelta(days=days - 1), limit)
        assert exact == [(first, first + timedelta(days=days - 1))]
        over = date_windows(first, first + timedelta(days=days), limit)
        assert over == [
            (first, first + timedelta(days=days - 1)),
            (first + timedelta(days=days), first + timedelta(days=days)),
        ]
    assert date_windows(first, first - timedelta(days=1), 92) == []


@pytest.mark.parametrize(
    ("days_back", "activity_requests", "timesheet_requests"),
    # requested span = days_back + today + tomorrow: 90 -> 92 days, 91 -> 93, 43 -> 45, 44 -> 46
    [(90, 1, 3), (91, 2, 3), (43, 1, 1), (44, 1, 2)],
)
def test_time_activity_and_timesheet_windows_at_the_provider_minimum(
    start_emulator, monkeypatch, warehouse, days_back, activity_requests, timesheet_requests
):
    server = ops_server(start_emulator, time_clocks=2, time_activities=200, activity_days=100)
    point_at(monkeypatch, server)
    summary = run_sync(("time_clocks", "time_activities", "timesheets"),
                       activities_days_back=days_back, project=resolve())  # fmt: skip
    requests = summary.requests
    assert requests["/time-clock/v1/time-clocks"] == 1
    assert (
        requests["/time-clock/v1/time-clocks/{timeClockId}/time-activities"]
        == 2 * activity_requests
    )
    assert requests["/time-clock/v1/time-clocks/{timeClockId}/timesheet"] == 2 * timesheet_requests
    ops = server.state.dataset.operations
    first, last = today() - timedelta(days=days_back), today() + timedelta(days=1)
    expected = {
        r["id"]
        for clock in ops.time_clocks
        for u in ops.time_activities(clock, first, last)
        for kind in ("shifts", "manualBreaks", "timeOffs")
        for r in u[kind]
    }
    loaded = {r[0] for r in query(warehouse, "select id from connecteam.time_activities")}
    assert loaded == expected and len(expected) > 20
    days = {
        f"{clock}:{u['userId']}:{d['date']}"
        for clock in ops.time_clocks
        for u in ops.timesheet(clock, first, last)
        for d in u["dailyRecords"]
    }
    assert {r[0] for r in query(warehouse, "select id from connecteam.timesheets")} == days


def test_time_activity_rows_are_flattened_exactly(start_emulator, monkeypatch, warehouse):
    server = ops_server(start_emulator, time_clocks=1, time_activities=300, activity_days=30)
    point_at(monkeypatch, server)
    run_sync(("time_clocks", "time_activities"), project=resolve())
    ops = server.state.dataset.operations
    for item in ops.activities[CLOCK]:
        record = item["record"]
        row = query(
            warehouse,
            "select user_id, activity_type, start_timestamp, start_timezone, end_timestamp, "
            "job_id, sub_job_id, manual_break_id, policy_type_id, auto_clock_out_mode, "
            f"modified_at from connecteam.time_activities where id = '{record['id']}'",
        )
        kind = {"shifts": "shift", "manualBreaks": "manual_break", "timeOffs": "time_off"}
        assert row == [(
            item["userId"], kind[item["kind"]], record["start"]["timestamp"],
            record["start"]["timezone"], record["end"]["timestamp"], record.get("jobId"),
            record.get("subJobId"), record.get("manualBreakId"), record.get("policyTypeId"),
            record["end"].get("source", {}).get("mode"), record["modifiedAt"],
        )]  # fmt: skip
    modes = query(warehouse, "select count(auto_clock_out_mode) from connecteam.time_activities")
    assert modes[0][0] > 0


def test_an_activity_deleted_at_the_provider_is_marked_deleted(
    start_emulator, monkeypatch, warehouse
):
    server = ops_server(start_emulator, time_clocks=1, time_activities=60, activity_days=20)
    point_at(monkeypatch, server)
    run_sync(("time_clocks", "time_activities"), project=resolve())
    activities = server.state.dataset.operations.activities[CLOCK]
    gone = activities.pop(len(activities) // 2)["record"]["id"]
    again = run_sync(("time_clocks", "time_activities"), project=resolve())
    assert again.rows["time_activities"] == 1  # only the tombstone
    flags = dict(query(warehouse, "select id, is_deleted from connecteam.time_activities"))
    assert flags.pop(gone) is True and not any(flags.values())


@pytest.mark.parametrize("source", [0, 1])
def test_an_activity_moved_to_another_time_clock_stays_live_there(
    start_emulator, monkeypatch, warehouse, source
):
    server = ops_server(start_emulator, time_clocks=2, time_activities=80, activity_days=20)
    point_at(monkeypatch, server)
    # one request at a time: the clocks are pulled in their listed order, so with source 0 the
    # old clock's tombstone is made before the new clock's live row
    monkeypatch.setenv("SOURCES__CONNECTEAM__MAX_IN_FLIGHT", "1")
    run_sync(("time_clocks", "time_activities"), project=resolve())
    activities = server.state.dataset.operations.activities
    old, new = CLOCK + source, CLOCK + 1 - source
    item = activities[old].pop(len(activities[old]) // 2)
    activities[new].append(item)
    moved = item["record"]["id"]
    again = run_sync(("time_clocks", "time_activities"), project=resolve())
    row = query(warehouse, "select time_clock_id, is_deleted from connecteam.time_activities "
                           f"where id = '{moved}'")  # fmt: skip
    assert row == [(new, False)]
    # the old clock's tombstone came after the new clock's live row: not loaded, and counted
    assert again.repeated_keys == {"time_activities": 1}
    assert (
        query(warehouse, "select count(*) from connecteam.time_activities where is_deleted")[0][0]
        == 0
    )


PAGED = {
    # stream: (emulator size field, page maximum, endpoint path, extra sync options)
    "form_submissions": ("form_submissions", 100, "/forms/v1/forms/{formId}/form-submissions", {}),
    "tasks": ("tasks", 100, "/tasks/v1/taskboards/{taskBoardId}/tasks", {}),
    "jobs": ("jobs", 500, "/jobs/v1/jobs", {}),
    "time_off_requests": ("time_off_requests", 100, "/time-off/v1/requests",
                          {"time_off_days_back": 182, "time_off_days_ahead": 182}),
}  # fmt: skip


@pytest.mark.parametrize("stream", list(PAGED))
@pytest.mark.parametrize("offset", [-1, 0, 1, "zero"])
def test_paged_streams_cost_the_minimum_per_parent(
    start_emulator, monkeypatch, warehouse, stream, offset
):
    size_field, limit, path, options = PAGED[stream]
    n = 0 if offset == "zero" else limit + int(offset)
    server = ops_server(start_emulator, **{size_field: n})
    point_at(monkeypatch, server)
    parents = {"form_submissions": ("forms",), "tasks": ("task_boards",)}.get(stream, ())
    summary = run_sync((*parents, stream), **options, project=resolve())
    assert summary.requests[path] == n // limit + 1
    ops = server.state.dataset.operations
    if stream == "jobs":
        expected = {j["jobId"] for j in ops.jobs} | {
            s["jobId"] for j in ops.jobs for s in j["subJobs"] or []
        }
        if n:
            sql = "select job_id, parent_job_id from connecteam.jobs"
            parents_of = dict(query(warehouse, sql))
            top = {k for k, p in parents_of.items() if p is None}
            assert top == {j["jobId"] for j in ops.jobs}
    else:
        records = {
            "form_submissions": [s for subs in ops.form_submissions.values() for s in subs],
            "tasks": [t for tasks in ops.tasks.values() for t in tasks],
            "time_off_requests": ops.time_off_requests,
        }[stream]
        key = "formSubmissionId" if stream == "form_submissions" else "id"
        expected = {str(r[key]) for r in records}
    assert len(expected) >= n
    column = KEYS[stream]
    loaded = (
        {str(r[0]) for r in query(warehouse, f"select {column} from connecteam.{stream}")}
        if n
        else set()
    )
    assert loaded == expected


@pytest.mark.parametrize(("back", "ahead", "windows"), [(182, 182, 1), (182, 183, 2)])
def test_time_off_window_splits_at_365_days(
    start_emulator, monkeypatch, warehouse, back, ahead, windows
):
    server = ops_server(start_emulator, time_off_requests=30)
    point_at(monkeypatch, server)
    summary = run_sync(
        ("time_off_requests",),
        time_off_days_back=back,
        time_off_days_ahead=ahead,
        project=resolve(),
    )
    assert summary.requests["/time-off/v1/requests"] == windows  # 30 requests: one page each
    loaded = {r[0] for r in query(warehouse, "select id from connecteam.time_off_requests")}
    assert loaded == {r["id"] for r in server.state.dataset.operations.time_off_requests}


@pytest.mark.parametrize("extra", [491, 492, 493])  # 8 usual fields + extra = L-1, L, L+1
def test_custom_field_definitions_cost_the_minimum(start_emulator, monkeypatch, warehouse, extra):
    server = ops_server(start_emulator, extra_custom_fields=extra)
    point_at(monkeypatch, server)
    summary = run_sync(("user_custom_field_definitions",), project=resolve())
    assert summary.requests["/users/v1/custom-fields"] == (8 + extra) // 500 + 1
    assert summary.rows["user_custom_field_definitions"] == 8 + extra


def test_answers_keep_their_question_type(start_emulator, monkeypatch, warehouse):
    server = ops_server(start_emulator, form_submissions=5)
    point_at(monkeypatch, server)
    run_sync(("forms", "form_submissions"), project=resolve())
    answers = query(warehouse, "select answers from connecteam.form_submissions")
    kinds = {a["questionType"] for (raw,) in answers for a in orjson.loads(raw)}
    assert kinds and kinds <= {"openEnded", "number", "datetime", "yesNo", "multipleChoice"}


def test_rerun_with_nothing_changed_loads_nothing_and_keys_stay_unique(
    start_emulator, monkeypatch, warehouse
):
    server = ops_server(start_emulator, time_clocks=2, time_activities=150, form_submissions=30,
                        jobs=9, time_off_requests=25, tasks=20)  # fmt: skip
    point_at(monkeypatch, server)
    first = run_sync(project=resolve())
    assert all(first.rows[s] > 0 for s in STREAMS if s not in ("user_documents",)), first.rows
    second = run_sync(project=resolve())
    snapshots = {s for s, stream in REGISTRY.items() if stream.incremental is Incremental.SNAPSHOT}
    assert {s: n for s, n in second.rows.items() if s not in snapshots and n} == {}, second.rows
    # a snapshot stream reloads the day's rows, merged in place (the keys stay unique below)
    assert all(second.rows[s] == first.rows[s] for s in snapshots), second.rows
    for table, key in KEYS.items():
        ((total, distinct),) = query(
            warehouse, f"select count(*), count(distinct ({key})) from connecteam.{table}"
        )
        assert total == distinct, table


# -- reconciliation --------------------------------------------------------------------------


def punch(activity_id: str, day: date, start: str, end: str, kind: str = "shift") -> dict:
    """A hand-made activity record on ``day`` (Europe/London, UTC+0 in winter), ``HH:MM``."""

    def at(hhmm: str) -> int:
        hours, minutes = map(int, hhmm.split(":"))
        return int(datetime(day.year, day.month, day.day, hours, minutes, tzinfo=UTC).timestamp())

    record: dict = {
        "id": activity_id,
        "start": {"timestamp": at(start), "timezone": "Europe/London"},
        "end": {"timestamp": at(end), "timezone": "Europe/London"},
        "createdAt": at(start),
        "modifiedAt": at(end),
    }
    if kind == "shift":
        record["jobId"] = "job-001"
    elif kind == "manual_break":
        record["manualBreakId"] = "mb-lunch"
    else:
        record.update(policyTypeId="pt-vacation", duration={"value": 8, "units": "hours"},
                      isAllDay=True)  # fmt: skip
    return record


def webhook_for(user_id: int, kind: str, record: dict, event: str | None = None) -> ReceivedEvent:
    payload = {
        "requestId": f"req-{record['id']}-{event or 'add'}",
        "company": "emulated-company",
        "eventType": event or ("admin_add" if kind == "time_off" else "clock_out"),
        "eventTimestamp": record["modifiedAt"] + (60 if event else 0),
        "activityType": kind,
        "userId": user_id,
        "timeClockId": CLOCK,
        "timeActivity": record,
        "timeActivityId": record["id"],
    }
    body = orjson.dumps(payload)
    return ReceivedEvent(read_envelope(payload, body), body, clock_now())


def test_reconciliation_names_missed_and_extra_activities_and_hours_follow_the_api(
    start_emulator, monkeypatch, warehouse
):
    server = start_emulator(
        users=12, forms=1, schedulers=1, shifts=1,
        anchor=int(clock_now()) // 86_400 * 86_400,
        operations=OperationsConfig(time_clocks=1, time_activities=0),
    )  # fmt: skip
    point_at(monkeypatch, server)
    users = sorted(u for u, rec in server.state.dataset.users.items() if not rec["isArchived"])[:3]
    u1, u2, u3 = users
    d0 = today() - timedelta(days=4)
    d1, d2 = d0 + timedelta(days=1), d0 + timedelta(days=2)
    api = [
        (u1, "shift", punch("A01", d0, "09:00", "17:00")),
        (u1, "manual_break", punch("A02", d0, "12:00", "12:30", "manual_break")),
        (u1, "shift", punch("A03", d1, "08:00", "12:00")),
        (u2, "shift", punch("A04", d0, "10:00", "16:00")),
        (u2, "shift", punch("A05", d1, "10:00", "18:30")),
        (u2, "manual_break", punch("A06", d1, "13:00", "13:45", "manual_break")),
        (u3, "shift", punch("A07", d0, "07:00", "15:00")),
        (u3, "shift", punch("A08", d1, "07:00", "11:00")),
        (u3, "shift", punch("A09", d2, "09:00", "10:30")),
        (u3, "time_off", punch("A10", d2, "00:00", "08:00", "time_off")),
    ]
    kinds = {"shift": "shifts", "manual_break": "manualBreaks", "time_off": "timeOffs"}
    server.state.dataset.operations.activities[CLOCK] = [
        {"userId": u, "kind": kinds[k], "record": r} for u, k, r in api
    ]
    # the webhooks missed A03 and A08, and still carry W01, which the API no longer has
    delivered = [webhook_for(u, k, r) for u, k, r in api if r["id"] not in ("A03", "A08")]
    delivered.append(webhook_for(u2, "shift", punch("W01", d1, "14:00", "15:00")))
    inbox = Inbox(inbox_url_from_config())
    inbox.insert_events(delivered)
    inbox.close()
    run_fold(project=resolve())
    run_sync(project=resolve())
    build_models(warehouse, select=RECONCILED, project=resolve())

    rows = query(
        warehouse,
        "select user_id, local_date, data_source, time_activity_ids "
        "from marts.fct_time_activity_reconciliation order by 1, 2, 3",
    )
    assert rows == [
        (u1, d1, "api_only", ["A03"]),
        (u2, d1, "webhooks_only", ["W01"]),
        (u3, d1, "api_only", ["A08"]),
    ]
    hours_sql = (
        "select user_id, local_date, worked_hours, time_off_hours, hours_source "
        f"from marts.fct_daily_hours where user_id in ({u1}, {u2}, {u3}) "
        "and (punch_count > 0 or time_off_hours > 0) order by 1, 2"
    )
    hours = query(warehouse, hours_sql)
    assert hours == [  # by hand: shifts minus manual breaks, from the API's version
        (u1, d0, 7.5, 0.0, "api"),
        (u1, d1, 4.0, 0.0, "api"),
        (u2, d0, 6.0, 0.0, "api"),
        (u2, d1, 7.75, 0.0, "api"),  # W01 (webhooks only, inside the re-pulled window) is out
        (u3, d0, 8.0, 0.0, "api"),
        (u3, d1, 4.0, 0.0, "api"),
        (u3, d2, 1.5, 8.0, "api"),
    ]
    assert collect_status(project=resolve()).reconciliation == {"api_only": 2, "webhooks_only": 1}

    # a webhook then says A05 was deleted, which the API does not reflect: the sources differ,
    # and the hours keep the API's version
    inbox = Inbox(inbox_url_from_config())
    inbox.insert_events([webhook_for(u2, "shift", api[4][2], event="admin_delete")])
    inbox.close()
    run_fold(project=resolve())
    build_models(warehouse, select=RECONCILED, project=resolve())
    assert collect_status(project=resolve()).reconciliation == {
        "api_only": 2,
        "differs": 1,
        "webhooks_only": 1,
    }
    assert query(warehouse, hours_sql) == hours
