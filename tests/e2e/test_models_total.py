"""The models are total: ``dbt build`` succeeds on any data the provider's spec allows, and more.

A warehouse whose raw tables are written directly, with what the provider may send and our
emulator never does: empty strings and '2026-13-45' in date columns, 'Zoë' and 'GMT+25' as
timezones, numbers beyond 64 bits or any date as text, optional columns missing, raw tables
missing, a ``user_documents`` table with none of the columns we read, JSON of unexpected shapes
(objects for lists, scalars for objects). The build passes (warnings allowed), every mart is
built, each staging model counts exactly the rows holding a value it could not type (counted
here by hand, row by row), and ``wfm-sync status`` shows those counts.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml  # type: ignore[import-untyped, unused-ignore]
from conftest import MODELS, WFM_SYNC, offline_project, query
from support.shared import once_per_run

from inbox.events import FAMILIES, UNKNOWN_FAMILY
from pipelines.dbt_runner import project_dir
from pipelines.model_docs import mart_docs
from pipelines.models import ModelsSummary, build_models
from pipelines.staging_declarations import staging_declarations
from pipelines.status import collect_status
from sources.configuration import resolve

BIG = "123456789012345678901234567890"  # beyond 64 bits
EPOCH = 1772359200  # 2026-03-01 10:00 UTC

# fmt: off
RAW: dict[str, tuple[str, list[tuple[Any, ...]]]] = {
    # users: email, phone_number, kiosk_code, archived_at, last_login never sent (no column);
    # modified_at arrived as text
    "connecteam.users": (
        "user_id bigint, first_name varchar, last_name varchar, user_type varchar, "
        "custom_fields json, is_archived boolean, created_at bigint, modified_at varchar, "
        "untyped_values json",
        [
            (1, "Ana", "Ok", "user", '[{"customFieldId": 1, "name": "Shirt", "type": "str", '
             '"value": "M"}]', False, EPOCH, str(EPOCH), '{"extraCode": "x"}'),
            (2, "Bo", "Odd", "robot", '{"not": "a list"}', None, EPOCH, "yesterday", None),  # 1
            (3, "Cy", "Odd", "user", '"just text"', None, 99999999999999, "", None),  # 1
            (4, "Di", "Ok", "user", '[{"customFieldId": "abc", "name": "X", "type": "number", '
             '"value": 5}, 7, {"customFieldId": 2, "value": {"a": [1]}}]', None, None, None, None),
            (5, "Ed", "Odd", "user", None, None, None, None, f'{{"createdAt": {BIG}}}'),  # 1
            (6, "Fa", "Ok", "user", None, None, None, None, f'{{"createdAt": "{EPOCH}"}}'),
            (7, "Gu", "Odd", "user", "[]", None, None, BIG, None),  # 1
        ],
    ),
    # forms: no created_at / last_updated_at columns
    "connecteam.forms": (
        "form_id bigint, form_name varchar, questions json, settings json",
        [
            (10, "Odd", "[]", '{"isAnonymous": "maybe"}'),  # 1
            (11, "Ok", '{"a": 1}', "[1, 2]"),
        ],
    ),
    "connecteam.schedulers": (
        "scheduler_id bigint, name varchar, timezone varchar, is_archived varchar",
        [
            (9000, "Zoe", "Zoë", "true"),  # 1
            (9001, "Lower", "europe/london", "maybe"),  # 1 (the timezone is fine, any case)
            (9002, "Blank", "", None),
        ],
    ),
    # shifts: no color, is_published, job_id, creation_time, update_time, deleted_at columns;
    # start_time arrived as text
    "connecteam.shifts": (
        "scheduler_id bigint, id varchar, shift_id varchar, title varchar, timezone varchar, "
        "is_open_shift boolean, start_time varchar, end_time bigint, breaks json, "
        "assigned_user_ids json, is_deleted boolean",
        [
            (9000, "A:1", "A", "ok", "Europe/London", False, str(EPOCH), EPOCH + 28800,
             '[{"type": "unpaid", "duration": 30}]', "[1]", False),
            (9000, "B", "B", "two users", "Zoë", False, "2026-03-01", EPOCH + 28800,
             "[]", "[1, 2]", False),  # 2 rows (one per user), each 2 values
            (9000, "C:1", "C", "odd", "GMT+25", True, str(EPOCH), EPOCH + 3600,
             '"none"', '{"x": 1}', False),  # 1
            (9000, "D:1", "D", "extremes", "Australia/Sydney", False, "-9223372036854775808",
             9223372036854775807, '[{"type": "unpaid", "duration": "ten"}]', "[3]", False),  # 1
            (9001, "E:1", "E", "dup users", "Europe/London", False, str(EPOCH + 86400),
             EPOCH + 90000, '[{"type": "unpaid", "duration": 15}, "x"]', "[3, 3]", False),
            (9001, "F:1", "F", "open spot", "Europe/London", True, str(EPOCH), EPOCH + 3600,
             None, "[]", False),
            (9001, "F:2", "F", "open spot", "Europe/London", True, str(EPOCH), EPOCH + 3600,
             None, None, False),
        ],
    ),
    "connecteam.time_clocks": ("id bigint, name varchar", [(7, "Main")]),
    # task_boards, time_activity_coverage: no table at all
    "connecteam.tasks": (
        "id varchar, task_board_id bigint, title varchar, status varchar, type varchar, "
        "due_date double, is_archived boolean",
        [
            ("t1", 5, "ok", "published", "oneTime", float(EPOCH), False),
            ("t2", 5, "odd", "weird", "oneTime", 1e300, False),  # 1
            ("t3", 5, "odd", "completed", "oneTime", float("nan"), False),  # 1
        ],
    ),
    "connecteam.time_activities": (
        "id varchar, time_clock_id bigint, user_id bigint, activity_type varchar, "
        "start_timestamp bigint, start_timezone varchar, end_timestamp bigint, "
        "end_timezone varchar, duration_value varchar, is_deleted boolean",
        [
            ("a1", 7, 1, "shift", EPOCH, "Europe/London", EPOCH + 3600, "Europe/London", None,
             False),
            ("a2", 7, 1, "shift", EPOCH, "Mars/Olympus_Mons", EPOCH + 7200, "", None,
             False),  # 1
            ("a3", 7, 2, "time_off", 0, "Europe/London", None, None, "abc", False),  # 1
        ],
    ),
    "connecteam.timesheets": (
        "id varchar, time_clock_id bigint, user_id bigint, date varchar, "
        "daily_total_hours varchar",
        [
            ("7:1:2026-03-02", 7, 1, "2026-03-02", "7.5"),
            ("7:1:odd", 7, 1, "2026-13-45", "lots"),  # 1 (two values)
            ("7:2:blank", 7, 2, "", None),
            ("7:2:odd", 7, 2, "31/12/2026", "8"),  # 1
        ],
    ),
    "connecteam.form_submissions": (
        "form_submission_id varchar, form_id bigint, submission_timestamp bigint, "
        "submission_timezone varchar, submitting_user_id bigint, answers json, entry_num hugeint",
        [
            ("fs1", 10, EPOCH, "Zoë", 1, "[]", 1),  # 1
            ("fs2", 11, EPOCH, "America/New_York", 2, '{"a": 1}', 2**70),  # 1 (beyond 64 bits)
            ("fs3", 12, EPOCH, "Europe/Paris", 999, None, 3),  # a user only this fact knows
        ],
    ),
    "connecteam.jobs": (
        "job_id varchar, title varchar, is_deleted varchar",
        [("j1", "Ok", "false"), ("j2", "Odd", "maybe")],  # 1
    ),
    "connecteam.time_off_requests": (
        "id varchar, policy_type_id varchar, user_id double, status varchar, "
        "start_date varchar, end_date varchar, timezone varchar, duration_units varchar, "
        "duration_amount double",
        [
            ("r1", "p1", 1, "approved", "2026-03-02", "2026-03-04", "Europe/London", "hours", 24),
            ("r2", "p2", 1, "approved", "", "2026-03-05", "Europe/London", "days", 1),
            ("r3", "p3", 1, "approved", "2026-13-45", "2026-03-05", "Zoë", "days", 1),  # 1
            ("r4", "p4", 1, "approved", "2026-03-10", "2026-03-01", "Europe/London", "days", 2),
            ("r5", "p5", 2, "approved", "0001-01-01", "9999-12-31", "Europe/London", "days", 9),
            ("r6", "p1", 2, "pending", "2026-03-02", "2026-03-02", "Europe/London", "weeks", 1),
            ("r7", "p1", 2, "approved", "2026-03-02T09:00:00Z", "2026-03-02", "GMT+25",
             "hours", 8),  # 1 (the timezone; the date's time part is ignored)
            ("r8", "p1", 1.5, "pending", "2026-03-02", "2026-03-02", "UTC", "days", 1),  # 1
        ],
    ),
    "connecteam.user_custom_field_definitions": (
        "id bigint, name varchar, type varchar, category_id varchar",
        [(1, "Shirt", "str", "12"), (2, "Odd", "brandNew", "x")],  # 1
    ),
    # user documents: none of the columns the model reads (the shape is unpublished)
    "connecteam.user_documents": (
        "document_uuid varchar, label varchar, state varchar, _dlt_load_id varchar",
        [("d-1", "Contract", "signed", "1"), ("d-2", "ID", "open", "1")],
    ),
    # webhook events: no activity_type, webhook_version columns
    "webhooks.events": (
        "event_key varchar, event_type varchar, family varchar, "
        "event_timestamp timestamptz, received_at timestamptz, payload json",
        [
            ("e1", "clock_in", "time_activity", '{"userId": 1, "timeClockId": 7, "timeActivity": '
             '{"id": "w1", "start": {"timestamp": 1772359200, "timezone": "Zoë"}}}'),  # 1
            ("e2", "clock_in", "time_activity",
             '{"userId": "abc", "timeActivity": "not an object"}'),  # 1
            ("e3", "user_timesheet_submitted", "timesheet_period",
             '{"userId": 1, "data": {"periodStart": "2026-13-45", "periodEnd": "2026-03-08"}}'),
            ("e4", "availability_status_created", "availability",
             '{"availabilityStatuses": {"not": "a list"}}'),
            ("e5", "availability_status_created", "availability",
             '{"availabilityStatuses": [{"userId": 1, "type": "available", "start": '
             '{"timestamp": "soon", "timezone": "Europe/London"}}, 5]}'),  # 1 (first item)
            ("e6", "shift_created", "shift", '{"schedulerId": 9000, "data": {"shifts": [{"id": '
             '"S9:x", "assignedUserIds": [1, "two"], "startTime": 1772359200, "endTime": '
             '"later", "timezone": "Europe/London"}]}}'),  # 1
            ("e7", "shift_deleted", "shift", '{"schedulerId": 9000, "data": {"ids": ["A:1"]}}'),
            ("e8", "user_updated", "user", '{"data": [{"userId": 1, "firstName": "Ana", '
             '"isArchived": "perhaps"}, 42]}'),  # 1 (first item)
            ("e9", "brand_new_event", "unknown", "[]"),
        ],
    ),
}
# fmt: on
"""Raw tables as the hostile warehouse holds them: ``(columns, rows)``; ``# n`` marks the rows
(n of them) holding a value their staging model cannot type."""

UNTYPABLE_ROWS = {
    "stg_connecteam__users": 4,  # users 2, 3, 5, 7
    "stg_connecteam__user_custom_fields": 1,  # user 4's customFieldId "abc"
    "stg_connecteam__forms": 1,
    "stg_connecteam__schedulers": 2,
    "stg_connecteam__shifts": 4,  # B (two rows), C, D
    "stg_connecteam__tasks": 2,
    "stg_connecteam__time_activities": 2,
    "stg_connecteam__timesheets": 2,
    "stg_connecteam__form_submissions": 2,
    "stg_connecteam__jobs": 1,
    "stg_connecteam__time_off_requests": 3,
    "stg_connecteam__user_custom_field_definitions": 1,
    "stg_webhooks__time_activities": 2,
    "stg_webhooks__timesheet_periods": 1,
    "stg_webhooks__availability_statuses": 1,
    "stg_webhooks__shift_events": 1,
    "stg_webhooks__user_events": 1,
}
"""Rows per staging model holding at least one untypable value, counted by hand above."""

MARTS = {d.name for d in mart_docs()}


def write_raw(warehouse: Path, tables: dict[str, tuple[str, list[tuple[Any, ...]]]]) -> None:
    """Create ``tables`` (``schema.table: (columns, rows)``) in the warehouse file as given."""
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(warehouse)) as con:
        for name, (columns, rows) in tables.items():
            con.execute(f"create schema if not exists {name.split('.')[0]}")
            con.execute(f"create table {name} ({columns})")
            if rows:
                marks = ", ".join("?" * len(rows[0]))
                con.executemany(f"insert into {name} values ({marks})", rows)


@pytest.fixture
def hostile(
    tmp_path_factory: pytest.TempPathFactory, warehouse: Path
) -> tuple[Path, ModelsSummary]:
    """This test's ``warehouse`` (``DESTINATION__DUCKDB__CREDENTIALS`` points at it): a copy of
    the warehouse of :data:`RAW` built once per test run; ``(warehouse, that build's
    summary)`` (whose ``warehouse`` names the shared file the build ran on)."""
    folder, summary = once_per_run(tmp_path_factory, "models-total-hostile", _built_hostile)
    shutil.copytree(folder, warehouse.parent)
    return warehouse, summary


def _built_hostile(folder: Path) -> tuple[Path, ModelsSummary]:
    """The warehouse of :data:`RAW` in ``folder``, after a build of every model (raises on any
    failed model or test); its folder and the build's summary."""
    timed = {
        name: (columns, [(*r[:3], "2026-03-01 10:00:00+00", "2026-03-01 10:00:01+00", r[3])
                         for r in rows] if name == "webhooks.events" else rows)
        for name, (columns, rows) in RAW.items()
    }  # fmt: skip
    warehouse = folder / "wh" / "warehouse.duckdb"
    write_raw(warehouse, timed)
    project = offline_project(warehouse)
    return warehouse.parent, build_models(warehouse, project=project)


def test_dbt_build_is_total_and_counts_exactly_the_untypable_rows(
    hostile: tuple[Path, ModelsSummary],
) -> None:
    warehouse, summary = hostile  # built: no model or test failed
    assert summary.failed == [] and summary.warned > 0
    marts = {t for (t,) in query(warehouse, "select table_name from information_schema.tables "
                                          "where table_schema = 'marts'")}  # fmt: skip
    assert marts == MARTS
    assert summary.untypable_rows == UNTYPABLE_ROWS
    # the warn tests count what the models say, row by row
    for model, expected in UNTYPABLE_ROWS.items():
        flagged = query(warehouse, f"select count(*) from staging.{model} "
                                 "where untypable_value_count > 0")  # fmt: skip
        assert flagged == [(expected,)], model
    # every staging model that casts has its warn test and is counted (none silently left out)
    casting = {m for m, d in staging_declarations().items() if d.casts}
    assert set(UNTYPABLE_ROWS) <= casting

    # staging: untypable values are null, absent columns are null, typable ones typed
    assert query(warehouse, "select timezone, is_archived, untypable_value_count "
                          "from staging.stg_connecteam__schedulers order by scheduler_id") == [
        (None, True, 1),
        ("europe/london", False, 1),  # a known name in any case, kept; "maybe": null, false
        (None, False, 0),
    ]  # fmt: skip
    users = dict(query(warehouse, "select user_id, created_at is not null "
                                "from staging.stg_connecteam__users"))  # fmt: skip
    assert users[6] and not users[5] and not users[3]  # "1772359200" kept aside is typed
    assert query(warehouse, "select count(*), count(email), count(last_login_at) "
                          "from staging.stg_connecteam__users") == [(7, 0, 0)]  # fmt: skip
    assert query(warehouse, "select count(*), count(user_document_id), count(status) "
                          "from staging.stg_connecteam__user_documents") == [(2, 0, 0)]  # fmt: skip

    # marts keep the rows whose local day is unknown, with a null day
    shifts = dict(query(warehouse, "select shift_assignment_key, local_date "
                                 "from marts.fct_shifts"))  # fmt: skip
    # 8 API assignments and S9, created by a webhook the API has not seen (its endTime untypable)
    assert len(shifts) == 9 and shifts["9000/B/1"] is None and shifts["9000/C/open"] is None
    assert str(shifts["9000/S9/1"]) == "2026-03-01"
    assert {"9001/F/open/F:1", "9001/F/open/F:2", "9001/E/3"} <= set(shifts)  # open slots
    assert str(shifts["9000/A/1"]) == "2026-03-01"
    assert query(warehouse, "select local_date from marts.fct_form_submissions "
                          "where form_submission_id = 'fs1'") == [(None,)]  # fmt: skip
    days_off = query(warehouse, "select policy_type_id, count(*), count(day_off), sum(amount) "
                              "from marts.fct_time_off group by 1 order by 1")  # fmt: skip
    assert days_off == [("p1", 4, 4, 32.0), ("p2", 1, 0, 1.0), ("p3", 1, 0, 1.0),
                        ("p4", 1, 0, 2.0), ("p5", 1, 0, 9.0)]  # fmt: skip
    unknown_day = query(warehouse, "select count(*) from marts.fct_daily_hours "
                                 "where local_date is null")  # fmt: skip
    assert unknown_day[0][0] > 0
    assert query(warehouse, "select count(*) from marts.dim_users where user_id = 999") == [(1,)]


def test_status_shows_the_untypable_counts_of_the_last_build(
    hostile: tuple[Path, ModelsSummary],
) -> None:
    report = collect_status(project=resolve())
    assert report.untypable_rows == UNTYPABLE_ROWS
    assert report.as_dict()["untypable_rows"] == UNTYPABLE_ROWS
    shown = subprocess.run(
        [*WFM_SYNC, "status", "--json"], capture_output=True, text=True, timeout=300
    )
    assert json.loads(shown.stdout)["untypable_rows"] == UNTYPABLE_ROWS, shown.stderr[-2000:]
    printed = subprocess.run([*WFM_SYNC, "status"], capture_output=True, text=True, timeout=300)
    assert "stg_connecteam__users 4" in " ".join(printed.stdout.split()), printed.stdout


def test_a_warehouse_with_no_raw_table_at_all_builds_every_model(warehouse: Path) -> None:
    write_raw(warehouse, {})
    summary = build_models(warehouse, project=resolve())
    assert summary.failed == [] and summary.untypable_rows == {}
    assert summary.passed_by_kind["model"] == MODELS
    # every column of every model is described in its YAML
    described = {}
    for path in (project_dir() / "models").glob("**/*.yml"):
        for model in yaml.safe_load(path.read_text()).get("models", []):
            described[model["name"]] = {
                c["name"] for c in model.get("columns", []) if c.get("description")
            }
    built = query(warehouse, "select table_name, list(column_name) from information_schema.columns "
                             "where table_schema in ('staging', 'intermediate', 'marts') "
                             # the incremental marts' bookkeeping (sql/macros/incremental.sql)
                             "and table_name <> 'incremental_builds' "
                             "group by table_name")  # fmt: skip
    assert len(built) == MODELS
    assert {name: sorted(set(cols) - described.get(name, set())) for name, cols in built} == {
        name: [] for name, _ in built
    }


def test_our_own_enumerations_in_tests_match_the_code_that_computes_them() -> None:
    sources = yaml.safe_load(
        (project_dir() / "models" / "staging" / "webhooks" / "_webhooks__sources.yml").read_text()
    )
    (webhooks,) = [s for s in sources["sources"] if s["name"] == "webhooks"]
    (family,) = [c for t in webhooks["tables"] for c in t["columns"] if c["name"] == "family"]
    (accepted,) = [t["accepted_values"] for t in family["data_tests"] if "accepted_values" in t]
    assert sorted(accepted["arguments"]["values"]) == sorted([*FAMILIES, UNKNOWN_FAMILY])
