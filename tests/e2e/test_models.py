"""The dbt models on real data from the emulator and the receiver: build, failures, snapshot."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from conftest import (
    ANCHOR,
    API_KEY,
    MODELS,
    WFM_SYNC,
    account_project,
    cli_env,
    offline_project,
    point_at,
    query,
)
from support.shared import once_per_run

from emulator import EmulatorConfig, EmulatorServer, ServerOptions
from emulator.server import BackgroundServer
from emulator.webhooks import build_burst, send_burst
from pipelines import run_sync
from pipelines.dbt_runner import run_dbt
from pipelines.fold import run_fold
from pipelines.models import ModelsBuildError, ModelsSummary, build_models
from pipelines.publish import publish_snapshot
from receiver import ReceiverConfig, create_app
from sources.configuration import resolve

READER = Path(__file__).parents[1] / "snapshot_reader.py"
USERS = list(range(1000, 1300))


SIZES = {"users": 300, "forms": 3, "schedulers": 2, "shifts": 1500}
"""The emulator account of these tests."""


def fill(start_emulator, warehouse, monkeypatch, tmp_path, events=400):
    """A warehouse with synced API data and folded webhooks; returns (emulator, inbox_url)."""
    server = start_emulator(**SIZES)
    point_at(monkeypatch, server)
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    monkeypatch.setenv("WEBHOOKS__INBOX_URL", inbox_url)
    send_events(inbox_url, events)
    run_sync(project=resolve())
    run_fold(project=resolve(inbox_url=inbox_url))
    return server, inbox_url


def send_events(inbox_url: str, events: int) -> None:
    """A burst of ``events`` webhook events about :data:`USERS` through a receiver into the
    inbox at ``inbox_url``."""
    with BackgroundServer(create_app(ReceiverConfig(token="t", inbox_url=inbox_url))) as rx:
        report = asyncio.run(
            send_burst(
                rx.url + "/webhooks/connecteam", build_burst(events, user_ids=USERS), token="t"
            )
        )
    assert len(report.acknowledged_keys) == events


def _filled(folder: Path) -> Path:
    """What :func:`fill` makes (400 events), in ``folder``, from an emulator of its own that is
    stopped afterwards; the warehouse's folder (every file of the project beside it)."""
    warehouse = folder / "wh" / "warehouse.duckdb"
    warehouse.parent.mkdir()
    options = ServerOptions(api_key=API_KEY, minute_limit=100_000, day_limit=1_000_000)
    with EmulatorServer(EmulatorConfig(anchor=ANCHOR, **SIZES), options) as server:
        project = account_project(warehouse, server.url, API_KEY)  # the inbox beside it
        send_events(project.webhooks.url, 400)
        run_sync(project=project)
        run_fold(project=project)
    return warehouse.parent


def _built(folder: Path, filled: Path) -> tuple[Path, ModelsSummary]:
    """A copy of ``filled`` in ``folder`` after a build of every model; the copy's warehouse
    folder and the build's summary."""
    copied = shutil.copytree(filled, folder / "wh")
    warehouse = copied / "warehouse.duckdb"
    project = offline_project(warehouse)
    return copied, build_models(warehouse, project=project)


@pytest.fixture
def filled(tmp_path_factory: pytest.TempPathFactory, warehouse: Path) -> Path:
    """This test's ``warehouse``, a copy of one synced and folded once per test run (the
    emulator account of :data:`SIZES`, 400 webhook events) and never built; the emulator that
    served it is gone."""
    shared = once_per_run(tmp_path_factory, "models-filled", _filled)
    shutil.copytree(shared, warehouse.parent)
    return warehouse


@pytest.fixture
def built(tmp_path_factory: pytest.TempPathFactory, warehouse: Path) -> tuple[Path, ModelsSummary]:
    """This test's ``warehouse`` as :func:`filled` gives it, after one build of every model made
    once per test run; ``(warehouse, that build's summary)`` (whose ``warehouse`` names the
    shared file the build ran on)."""
    shared = once_per_run(tmp_path_factory, "models-filled", _filled)
    folder, summary = once_per_run(
        tmp_path_factory, "models-built", lambda folder: _built(folder, shared)
    )
    shutil.copytree(folder, warehouse.parent)
    return warehouse, summary


def test_dbt_build_passes_on_emulator_data_with_every_model(built):
    warehouse, summary = built
    assert summary.failed == [] and summary.scope.startswith("every model")
    assert summary.passed_by_kind["model"] == MODELS
    assert "unit_test" not in summary.passed_by_kind  # make test's (tests/e2e/test_demo.py)
    assert summary.passed_by_kind["test"] >= 60
    # marts agree with the raw data they are built from
    live = query(
        warehouse,
        "select count(*), round(sum(end_time - start_time) / 3600.0, 2) from connecteam.shifts "
        "where not is_deleted",
    )[0]
    fct = query(
        warehouse,
        "select count(*), round(sum(scheduled_hours + unpaid_break_minutes / 60.0), 2) "
        "from marts.fct_shifts where not is_deleted and data_source = 'api'",
    )[0]
    assert live == fct  # the burst's shift events name shifts the API does not hold: added
    scheduled = query(
        warehouse,
        "select round(sum(scheduled_hours), 2) from marts.fct_shifts "
        "where not is_deleted and is_published and user_id is not null",
    )[0][0]
    assert query(warehouse, "select round(sum(scheduled_hours), 2) from marts.fct_daily_hours")[0][
        0
    ] == pytest.approx(scheduled, abs=0.05)
    orphans = query(
        warehouse,
        "select count(*) from marts.fct_time_activities t "
        "left join marts.dim_users u using (user_id) where u.user_id is null",
    )[0][0]
    assert orphans == 0
    # every API activity is in the fact, from the API; the fact fills the rest from webhooks
    api = query(warehouse, "select count(*) from connecteam.time_activities")[0][0]
    by_source = dict(
        query(warehouse, "select data_source, count(*) from marts.fct_time_activities group by 1")
    )
    assert api > 0 and by_source["api"] == api
    # the emulator ties punches to shifts (on time, late, leaving early; no-shows; unscheduled)
    ((matched, late, early, no_shows, unscheduled),) = query(
        warehouse,
        "select count(*) filter (where matched_by = 'scheduler_shift_id'), "
        "count(*) filter (where is_late), count(*) filter (where early_leave_minutes > 0), "
        "count(*) filter (where no_show), count(*) filter (where is_unscheduled) "
        "from marts.fct_attendance",
    )
    assert min(matched, late, early, no_shows, unscheduled) > 0
    # worked hours are costed at the default and at job rates; monthly/yearly rates uncosted
    cost_sql = ("select rate_source, round(sum(worked_hours), 2) "
                "from marts.fct_labour_cost_daily group by 1")  # fmt: skip
    sources = dict(query(warehouse, cost_sql))
    assert sources.get("default", 0) > 0 and sources.get("resource", 0) > 0
    # every worked hour of the day mart is costed once, from the provider's pay or our estimate
    worked = query(warehouse, "select round(sum(worked_hours), 2) from marts.fct_daily_hours")[0][0]
    assert sum(sources.values()) == pytest.approx(worked, abs=0.05)
    costed = dict(query(warehouse, "select cost_source, count(*) from marts.fct_labour_cost_daily "
                                   "group by 1"))  # fmt: skip
    assert costed.get("provider", 0) > 0 and costed.get("estimate", 0) > 0
    balances = query(warehouse, "select count(*) from connecteam.time_off_balances")[0][0]
    assert balances > 0
    assert query(warehouse, "select count(*) from marts.fct_time_off_balances") == [(balances,)]


def test_duplicate_key_fails_the_build_by_name_with_the_rows(built):
    warehouse, _ = built  # built once already
    publish_snapshot(warehouse, project=resolve())
    snapshot = warehouse.parent / "analytics.duckdb"
    published = snapshot.stat().st_mtime_ns
    with duckdb.connect(str(warehouse)) as con:
        con.execute(
            "insert into connecteam.users select * from connecteam.users where user_id = 1005"
        )
    with pytest.raises(ModelsBuildError) as caught:
        build_models(warehouse, project=resolve())
    message = str(caught.value)
    assert "source_primary_key_connecteam_users_user_id" in message
    assert "1005" in message  # a sample of the offending rows
    assert caught.value.summary.skipped > 0  # nothing downstream of the broken source is built

    env = dict(os.environ, DESTINATION__DUCKDB__CREDENTIALS=str(warehouse))  # no account needed
    result = subprocess.run(
        [*WFM_SYNC, "models", "build"], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 1
    assert "source_primary_key_connecteam_users_user_id" in result.stdout + result.stderr
    assert snapshot.stat().st_mtime_ns == published  # nothing published after a failed build


def test_odd_provider_values_warn_and_are_counted_while_our_invariants_fail(filled):
    warehouse = filled
    with duckdb.connect(str(warehouse)) as con:
        con.execute("update connecteam.user_documents set status = 'lost' where id = 880000")
        ids = [r[0] for r in con.sql("select id from connecteam.time_off_requests order by id "
                                     "limit 3").fetchall()]  # fmt: skip
        con.execute(
            "update connecteam.time_off_requests set start_date = '' where id = ?", [ids[0]]
        )
        con.execute("update connecteam.time_off_requests set end_date = '2026-13-45', "
                    "timezone = 'Zoë' where id = ?", [ids[1]])  # fmt: skip
        con.execute("update connecteam.time_off_requests set timezone = 'Mars/Olympus' "
                    "where id = ?", [ids[2]])  # fmt: skip
    summary = build_models(
        warehouse, project=resolve()
    )  # a new enum value and odd values warn; nothing fails
    assert summary.warned >= 2
    # '' is an absent value (null, not counted); '2026-13-45', 'Zoë' and 'Mars/Olympus' are not
    # typable: two rows hold them
    assert summary.untypable_rows == {"stg_connecteam__time_off_requests": 2}
    rows = query(warehouse, "select start_date, untypable_value_count "
                 "from staging.stg_connecteam__time_off_requests "
                 f"where time_off_request_id = '{ids[0]}'")  # fmt: skip
    assert rows == [(None, 0)]
    rows = query(warehouse, "select end_date, timezone, untypable_value_count "
                 "from staging.stg_connecteam__time_off_requests "
                 f"where time_off_request_id = '{ids[1]}'")  # fmt: skip
    assert rows == [(None, None, 2)]
    # our own invariant (one row per key) still fails the build, naming the test
    with duckdb.connect(str(warehouse)) as con:
        con.execute("insert into connecteam.users select * from connecteam.users limit 1")
    with pytest.raises(ModelsBuildError) as caught:
        build_models(warehouse, project=resolve())
    assert "source_primary_key_connecteam_users_user_id" in str(caught.value)


def test_a_key_with_a_missing_part_is_null_so_its_primary_key_test_can_fail(tmp_path: Path) -> None:
    """readable_key spells no placeholder of its own: a null part makes the key null (a part
    that may be null by design names its placeholder where the model calls it)."""
    parts = "['1', 'null', \"'x'\"]"
    sql = f"select {{{{ readable_key({parts}) }}}} as missing, "
    sql += "{{ readable_key(['1', \"'a'\"]) }} as whole"
    result = run_dbt(["show", "--inline", sql], tmp_path / "keys.duckdb", project=resolve())
    assert result.success
    assert tuple(result.result.results[0].agate_table.rows[0].values()) == (None, "1/a")


def test_a_primary_key_test_returns_each_duplicated_value_and_the_rows_without_a_key(
    tmp_path: Path,
) -> None:
    """sql/tests/generic/primary_key.sql: unique and not_null in one query, offending rows as
    dbt's unique test gives them, (unique_field, n_records)."""
    warehouse = tmp_path / "keys.duckdb"
    with duckdb.connect(str(warehouse)) as con:
        con.execute("create table main.k as select * from (values (1), (2), (2), (3), "
                    "(3), (3), (null)) t(id)")  # fmt: skip
        con.execute("create table main.fine as select * from (values (1), (2)) t(id)")
    relation = "api.Relation.create(database='keys', schema='main', identifier='{}')"
    sql = "{{{{ test_primary_key({}, 'id') }}}}"
    rows = {}
    for table in ("k", "fine", "absent"):
        inline = sql.format(relation.format(table))
        result = run_dbt(["show", "--inline", inline], warehouse, project=resolve())
        assert result.success, result.exception
        found = [tuple(r.values()) for r in result.result.results[0].agate_table.rows]
        rows[table] = sorted(found, key=lambda row: (row[0] is None, row))
    assert rows == {"k": [(2, 2), (3, 3), (None, 1)], "fine": [], "absent": []}


def read_observations(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_snapshot_readers_see_old_or_new_never_a_mix_while_nightly_publishes(
    start_emulator, warehouse, monkeypatch, tmp_path
):
    server, inbox_url = fill(start_emulator, warehouse, monkeypatch, tmp_path)
    env = dict(cli_env(server, warehouse), WEBHOOKS__INBOX_URL=inbox_url)
    first = subprocess.run(
        [*WFM_SYNC, "sync"], env=env, capture_output=True, text=True, timeout=300
    )
    assert first.returncode == 0, first.stderr[-3000:]
    snapshot = warehouse.parent / "analytics.duckdb"
    assert snapshot.exists()

    stop = tmp_path / "stop"
    outputs = {mode: tmp_path / f"{mode}.jsonl" for mode in ("fresh", "held")}
    readers = [
        subprocess.Popen([sys.executable, str(READER), str(snapshot), str(out), str(stop), mode])
        for mode, out in outputs.items()
    ]
    try:
        deadline = time.monotonic() + 60
        while not all(out.exists() and out.read_text() for out in outputs.values()):
            assert time.monotonic() < deadline, "readers did not start"
            assert all(r.poll() is None for r in readers), "a reader died"
            time.sleep(0.1)
        server.control("mutate", {"users": 5, "shifts": 20, "delete_shifts": 5, "new_shifts": 30})
        second = subprocess.run(
            [*WFM_SYNC, "sync"], env=env, capture_output=True, text=True, timeout=300
        )
        assert second.returncode == 0, second.stderr[-3000:]
        time.sleep(1.0)
    finally:
        stop.touch()
        codes = [r.wait(60) for r in readers]
    assert codes == [0, 0]

    fresh, held = (read_observations(outputs[m]) for m in ("fresh", "held"))
    states = {json.dumps(o, sort_keys=True) for o in fresh}
    assert len(states) == 2, "fresh connections should see exactly the old and the new snapshot"
    by_published = {}
    for o in fresh:  # one published_at never comes with two different sets of counts
        by_published.setdefault(o["published_at"], set()).add(json.dumps(o, sort_keys=True))
    assert all(len(v) == 1 for v in by_published.values())
    old = json.loads(min(states, key=lambda s: json.loads(s)["published_at"]))
    new = json.loads(max(states, key=lambda s: json.loads(s)["published_at"]))
    assert old["fct_shifts"] != new["fct_shifts"]  # the second publish really changed the data
    assert fresh[0] == old and fresh[-1] == new
    assert all(o == old for o in held)  # a held connection keeps its snapshot until it reconnects
