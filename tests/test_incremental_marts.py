"""Incremental marts against full builds, end to end with real parts: the emulator over HTTP, a
real DuckDB warehouse. Three nightly syncs a day apart, with changes at the provider between
them (a punch edited inside the sync's re-pulled window, a punch deleted, a new day of punches,
shifts added, moved and deleted), each followed by an incremental models build; then a copy of
the warehouse is built with ``--full-refresh`` and every incremental model must hold the same
rows in both, compared both ways (EXCEPT ALL). A build whose look-back is shorter than the
sync's window must differ (the comparison sees what an incremental build misses)."""

from __future__ import annotations

import copy
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest
from conftest import ANCHOR, NOW, point_at

from emulator.config import OperationsConfig
from pipelines import run_sync
from pipelines.models import build_models

DAY = 86_400
INCREMENTAL = {
    "intermediate": ("int_time_activities__paid_time", "int_shift_assignments__versions"),
    "marts": (
        "fct_daily_hours",
        "fct_attendance",
        "fct_labour_cost_daily",
        "fct_timesheet_days",
        "fct_schedule_changes",
    ),
}
"""The incremental models, by schema."""


def differences(incremental: Path, full: Path) -> dict[str, tuple[int, int]]:
    """Per incremental model whose rows differ: ``(rows only in the incremental build, rows
    only in the full one)``, duplicates counted (EXCEPT ALL both ways)."""
    found = {}
    with duckdb.connect(str(incremental), read_only=True) as con:
        con.execute(f"attach '{full}' as full_build (read_only)")
        for schema, models in INCREMENTAL.items():
            for model in models:
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


def nightly_syncs(server: Any, monkeypatch: pytest.MonkeyPatch, warehouse: Path) -> None:
    """Sync and build (incrementally after the first) on three days, changing the provider's
    data before the second and third."""
    for day in range(3):
        if day:
            monkeypatch.setenv("WFM_SYNC_NOW", str(NOW + day * DAY))
            change_day(server, day)
        run_sync()
        build_models(warehouse)


@pytest.mark.slow
def test_incremental_marts_equal_a_full_build_after_nightly_syncs(
    start_emulator, monkeypatch, warehouse, tmp_path
):
    server = account(start_emulator)
    point_at(monkeypatch, server)
    # history older than the sync's window: rows an incremental build keeps as they are
    monkeypatch.setenv("SOURCES__CONNECTEAM__ACTIVITIES_BACKFILL_START", str(ANCHOR - 70 * DAY))
    nightly_syncs(server, monkeypatch, warehouse)
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
    build_models(full, full_refresh=True)
    assert differences(warehouse, full) == {}
    deleted = rows(
        warehouse,
        "select count(*) from connecteam.time_activities where is_deleted",
    )
    assert deleted[0][0] == 2  # both deletions reached the warehouse (and left the marts)


@pytest.mark.slow
def test_a_look_back_shorter_than_the_window_misses_late_edits(
    start_emulator, monkeypatch, warehouse, tmp_path
):
    server = account(start_emulator)
    point_at(monkeypatch, server)
    run_sync()
    build_models(warehouse)
    monkeypatch.setenv("WFM_SYNC_NOW", str(NOW + DAY))
    change_day(server, 1)
    run_sync()
    # the builds' look-back is the sync's configured window: one day, where the sync re-pulled 35
    monkeypatch.setenv("SOURCES__CONNECTEAM__ACTIVITIES_DAYS_BACK", "1")
    monkeypatch.setenv("SOURCES__CONNECTEAM__SHIFTS_DAYS_BACK", "1")
    build_models(warehouse)
    full = tmp_path / "full" / "warehouse.duckdb"
    full.parent.mkdir()
    shutil.copy(warehouse, full)
    build_models(full, full_refresh=True)
    missed = differences(warehouse, full)
    assert {"int_time_activities__paid_time", "fct_daily_hours"} <= set(missed)


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
    from servers import fresh_database

    database = fresh_database(postgres, "incremental")
    monkeypatch.setenv("WFM_SYNC_DESTINATION", "postgres")
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", database)
    server = account(start_emulator)
    point_at(monkeypatch, server)
    monkeypatch.setenv("SOURCES__CONNECTEAM__ACTIVITIES_BACKFILL_START", str(ANCHOR - 70 * DAY))
    nightly_syncs(server, monkeypatch, warehouse)
    incremental = postgres_rows(database)
    assert all(incremental.values())  # every model has rows
    build_models(full_refresh=True)
    full = postgres_rows(database)
    missing = {m: (len(incremental[m] - full[m]), len(full[m] - incremental[m])) for m in full}
    assert {m: d for m, d in missing.items() if d != (0, 0)} == {}
