"""Incremental marts against full builds, end to end with real parts: the emulator over HTTP, a
real DuckDB warehouse. Three nightly syncs a day apart, with changes at the provider between
them (a punch edited inside the sync's re-pulled window, a punch deleted, a new day of punches,
shifts added, moved and deleted), each followed by a planned models build (after the first,
only the models whose inputs changed: :mod:`pipelines.model_plan`); then a copy of the
warehouse is built whole with ``--full-refresh`` and every model's table must hold the same
rows in both, compared both ways (EXCEPT ALL). Admin edits, deletions and moves by webhook of
punches far older than any window the sync re-pulls reach them too, on DuckDB; the nightly
sequence holds on PostgreSQL as well. The generated sequences of changes are in
test_incremental_properties.py."""

from __future__ import annotations

import copy
import shutil
from collections import Counter
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest
from conftest import ANCHOR, NOW, point_at
from test_operations import CLOCK, punch, today, webhook_for

from core.clock import now as clock_now
from emulator.config import OperationsConfig
from inbox import Inbox
from pipelines import run_sync
from pipelines.fold import run_fold
from pipelines.models import build_models
from sources.configuration import resolve
from sources.webhooks.config import inbox_url_from_config

DAY = 86_400
INCREMENTAL = {"marts": ("fct_daily_hours", "fct_labour_cost_daily")}
"""The incremental models, by schema."""


BOOKKEEPING = ("incremental_builds", "int_user_days__changes")
"""The incremental marts' own records (which builds ran, the change log since each): history by
design, not figures; a full refresh starts them again."""


def model_tables(path: Path) -> dict[str, tuple[str, ...]]:
    """Every table the models build (schemas ``intermediate`` and ``marts``) but
    :data:`BOOKKEEPING`, by schema."""
    found: dict[str, tuple[str, ...]] = {}
    for schema, table in rows(
        path,
        "select table_schema, table_name from information_schema.tables where table_type = "
        "'BASE TABLE' and table_schema in ('intermediate', 'marts') order by 1, 2",
    ):
        if table not in BOOKKEEPING:
            found[schema] = (*found.get(schema, ()), table)
    return found


def differences(
    incremental: Path, full: Path, models: dict[str, tuple[str, ...]] = INCREMENTAL
) -> dict[str, tuple[int, int]]:
    """Per model of ``models`` (by schema) whose rows differ: ``(rows only in the incremental
    build, rows only in the full one)``, duplicates counted (EXCEPT ALL both ways)."""
    found = {}
    with duckdb.connect(str(incremental), read_only=True) as con:
        con.execute(f"attach '{full}' as full_build (read_only)")
        for schema, names in models.items():
            for model in names:
                ours, theirs = f"{schema}.{model}", f"full_build.{schema}.{model}"
                ((only_ours,),) = con.sql(
                    f"select count(*) from (select * from {ours} except all select * from {theirs})"
                ).fetchall()
                ((only_theirs,),) = con.sql(
                    f"select count(*) from (select * from {theirs} except all select * from {ours})"
                ).fetchall()
                if only_ours or only_theirs:
                    found[model] = (only_ours, only_theirs)
    return found


def rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    """``sql`` on the warehouse file, read-only."""
    with duckdb.connect(str(path), read_only=True) as con:
        return con.sql(sql).fetchall()


def punches(server: Any) -> list[dict[str, Any]]:
    """The emulator's shift punches of its first time clock, oldest first (the live items)."""
    ops = server.state.dataset.operations
    items = ops.activities[min(ops.activities)]
    found = [i for i in items if i["kind"] == "shifts" and i["record"].get("end")]
    return sorted(found, key=lambda i: i["record"]["start"]["timestamp"])


def near(server: Any, days_before: int) -> dict[str, Any]:
    """The first shift punch starting ``days_before`` days before the emulator's anchor."""
    day = ANCHOR - days_before * DAY
    return next(i for i in punches(server) if day <= i["record"]["start"]["timestamp"] < day + DAY)


def change_day(server: Any, day: int) -> None:
    """A day at the provider, ``day`` days after the anchor: one punch inside the sync's window
    gets 90 more minutes, another is deleted, a punch for that day is added (a copy of the last
    one, a day later), and shifts are added, moved and deleted."""
    ops = server.state.dataset.operations
    clock = min(ops.activities)
    edited = near(server, 3 + day)["record"]
    edited["end"] = {**edited["end"], "timestamp": edited["end"]["timestamp"] + 5400}
    edited["modifiedAt"] = NOW + day * DAY
    gone = near(server, 6 + day)
    ops.activities[clock].remove(gone)
    newest = copy.deepcopy(punches(server)[-1])
    newest["record"]["id"] = f"incr-{day}"
    for point in ("start", "end"):
        newest["record"][point]["timestamp"] += DAY
    ops.activities[clock].append(newest)
    server.state.dataset.version += 1
    server.control("mutate", {"new_shifts": 3, "delete_shifts": 2, "move_shifts": 1})


def account(start_emulator: Any) -> Any:
    """The emulated account: 25 users, 300 shift rows, 900 time activities over 70 days."""
    operations = OperationsConfig(time_activities=900, activity_days=70, time_clocks=2)
    return start_emulator(users=25, schedulers=2, shifts=300, forms=1, operations=operations)


def nightly_syncs(server: Any, monkeypatch: pytest.MonkeyPatch, warehouse: Path) -> list[str]:
    """Sync and build (incrementally after the first) on three days, changing the provider's
    data before the second and third; what each build rebuilt (its scope)."""
    scopes = []
    for day in range(3):
        if day:
            monkeypatch.setenv("WFM_SYNC_NOW", str(NOW + day * DAY))
            change_day(server, day)
        run_sync(project=resolve())
        scopes.append(build_models(warehouse, project=resolve()).scope)
    return scopes


@pytest.mark.slow
def test_incremental_marts_equal_a_full_build_after_nightly_syncs(
    start_emulator, monkeypatch, warehouse, tmp_path
):
    server = account(start_emulator)
    point_at(monkeypatch, server)
    # history older than the sync's window: rows an incremental build keeps as they are
    monkeypatch.setenv("SOURCES__CONNECTEAM__ACTIVITIES_BACKFILL_START", str(ANCHOR - 70 * DAY))
    scopes = nightly_syncs(server, monkeypatch, warehouse)
    assert scopes[0].startswith("every model") and scopes[2].startswith("what changed: ")
    assert "connecteam.time_activities" in scopes[2] and "connecteam.forms" not in scopes[2]
    newest = rows(
        warehouse, "select max(local_date) from marts.fct_daily_hours where punch_count > 0"
    )
    assert str(newest[0][0]) >= "2026-11-21"  # the added punches' days are in
    ((old,),) = rows(
        warehouse,
        "select count(*) from marts.fct_daily_hours where punch_count > 0 "
        "and local_date < date '2026-11-20' - 40",
    )
    assert old > 0  # days before the look-back exist (and were kept, not re-derived)
    ((changes,),) = rows(
        warehouse,
        f"select count(*) from marts.fct_schedule_changes where changed_at > to_timestamp({NOW})",
    )
    assert changes > 0  # the later syncs' schedule changes went through the incremental path

    full = tmp_path / "full" / "warehouse.duckdb"
    full.parent.mkdir()
    shutil.copy(warehouse, full)
    build_models(full, full_refresh=True, project=resolve())
    # the planned builds (only what changed, after the first) left every model's table as a
    # full build of every model makes it
    every = model_tables(full)
    assert len(every["marts"]) > 20 and every == model_tables(warehouse)
    assert differences(warehouse, full, every) == {}
    deleted = rows(
        warehouse,
        "select count(*) from connecteam.time_activities where is_deleted",
    )
    assert deleted[0][0] == 2  # both deletions reached the warehouse (and left the marts)


def worked(path: Path, user: int, day: date) -> float:
    """``user``'s worked hours on ``day`` in fct_daily_hours (0 without a row)."""
    ((hours,),) = rows(
        path,
        "select coalesce(sum(worked_hours), 0) from marts.fct_daily_hours "
        f"where user_id = {user} and local_date = date '{day}'",
    )
    return float(hours)


@pytest.mark.slow
def test_admin_edits_of_any_age_reach_the_incremental_marts(
    start_emulator, monkeypatch, warehouse, tmp_path
):
    """The issue's four late edits, by webhook, on punches 200 days old (far outside every
    window the API sync re-pulls), after an ordinary incremental build: by hand from the
    events' own start/end, an edited punch counts its new 3 hours, a deleted one nothing, a
    punch moved from a recent day to an old one counts on the old day only, and one moved from
    an old day to a recent one on the recent day only."""
    server = start_emulator(
        users=12, forms=1, schedulers=1, shifts=1,
        anchor=int(clock_now()) // DAY * DAY,
        operations=OperationsConfig(time_clocks=1, time_activities=0),
    )  # fmt: skip
    point_at(monkeypatch, server)
    monkeypatch.setenv("SOURCES__CONNECTEAM__ACTIVITIES_BACKFILL_START", str(NOW - 230 * DAY))
    u1, u2, u3, u4 = sorted(
        u for u, record in server.state.dataset.users.items() if not record["isArchived"]
    )[:4]
    old, older, recent = today() - timedelta(200), today() - timedelta(210), today() - timedelta(2)
    api = [
        (u1, punch("L1", old, "09:00", "17:00")),
        (u2, punch("L2", old, "09:00", "17:00")),
        (u3, punch("L3", recent, "08:00", "12:00")),
        (u4, punch("L4", old, "13:00", "17:00")),
    ]
    server.state.dataset.operations.activities[CLOCK] = [
        {"userId": user, "kind": "shifts", "record": record} for user, record in api
    ]
    run_sync(project=resolve())
    build_models(warehouse, project=resolve())
    assert [worked(warehouse, *at) for at in ((u1, old), (u2, old), (u3, recent), (u4, old))] == [
        8.0, 8.0, 4.0, 4.0,
    ]  # fmt: skip

    def edited(record_id: str, day: date, start: str, end: str) -> dict:
        record = punch(record_id, day, start, end)
        record["modifiedAt"] = NOW + 3600  # an hour after the sync: the webhook is newer
        return record

    monkeypatch.setenv("WFM_SYNC_NOW", str(NOW + 2 * 3600))

    inbox = Inbox(inbox_url_from_config())
    inbox.insert_events([
        webhook_for(u1, "shift", edited("L1", old, "09:00", "12:00"), event="admin_edit"),
        webhook_for(u2, "shift", edited("L2", old, "09:00", "17:00"), event="admin_delete"),
        webhook_for(u3, "shift", edited("L3", older, "08:00", "12:00"), event="admin_edit"),
        webhook_for(u4, "shift", edited("L4", recent, "13:00", "17:00"), event="admin_edit"),
    ])  # fmt: skip
    inbox.close()
    run_fold(project=resolve())
    build_models(warehouse, project=resolve())

    assert worked(warehouse, u1, old) == 3.0  # edited: 09:00-12:00
    assert worked(warehouse, u2, old) == 0.0  # deleted
    assert (worked(warehouse, u3, recent), worked(warehouse, u3, older)) == (0.0, 4.0)
    assert (worked(warehouse, u4, old), worked(warehouse, u4, recent)) == (0.0, 4.0)
    cost = rows(
        warehouse,
        "select user_id, local_date, sum(paid_hours) from marts.fct_labour_cost_daily "
        f"where user_id in ({u1}, {u2}, {u3}, {u4}) and paid_hours > 0 group by all order by all",
    )
    assert cost == sorted([(u1, old, 3.0), (u3, older, 4.0), (u4, recent, 4.0)])
    full = tmp_path / "full" / "warehouse.duckdb"
    full.parent.mkdir()
    shutil.copy(warehouse, full)
    build_models(full, full_refresh=True, project=resolve())
    # the planned builds (only what changed, after the first) left every model's table as a
    # full build of every model makes it
    every = model_tables(full)
    assert len(every["marts"]) > 20 and every == model_tables(warehouse)
    assert differences(warehouse, full, every) == {}


def postgres_rows(url: str) -> dict[str, Counter[tuple[Any, ...]]]:
    """Every incremental model's rows in the PostgreSQL warehouse ``url``, counted (as text, so
    floats compare as the database prints them)."""
    import psycopg2

    found = {}
    with psycopg2.connect(url) as connection, connection.cursor() as cursor:
        for schema, models in INCREMENTAL.items():
            for model in models:
                cursor.execute(f"select t::text from {schema}.{model} as t")
                found[model] = Counter(row for row in cursor.fetchall())
    return found


@pytest.mark.slow
def test_incremental_marts_equal_a_full_build_on_postgresql(
    postgres, start_emulator, monkeypatch, warehouse
):
    from support.servers import fresh_database

    database = fresh_database(postgres, "incremental")
    monkeypatch.setenv("WFM_SYNC_DESTINATION", "postgres")
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", database)
    server = account(start_emulator)
    point_at(monkeypatch, server)
    monkeypatch.setenv("SOURCES__CONNECTEAM__ACTIVITIES_BACKFILL_START", str(ANCHOR - 70 * DAY))
    nightly_syncs(server, monkeypatch, warehouse)
    incremental = postgres_rows(database)
    assert all(incremental.values())  # every model has rows
    build_models(full_refresh=True, project=resolve())
    full = postgres_rows(database)
    missing = {m: (len(incremental[m] - full[m]), len(full[m] - incremental[m])) for m in full}
    assert {m: d for m, d in missing.items() if d != (0, 0)} == {}
