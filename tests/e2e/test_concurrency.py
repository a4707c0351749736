"""Requests in flight at once (``SOURCES__CONNECTEAM__MAX_IN_FLIGHT``) against a slow emulator
(a real HTTP server): the same warehouse as one request at a time, never more requests under way
than allowed, and never a 429 however small the budget."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx
import pytest
from conftest import CORE, WFM_SYNC, cli_env, point_at, query

from benchmarks._emulator import EmulatorProcess
from emulator.operations_data import OperationsConfig
from pipelines import SyncSummary, run_sync
from sources.configuration import resolve
from sources.connecteam.errors import ConnecteamConfigError
from sources.connecteam.registry import STREAMS

OPERATIONS = OperationsConfig(
    time_clocks=3, time_activities=300, form_submissions=120, task_boards=3, tasks=120,
    time_off_requests=150,
)  # fmt: skip
SIZE = {"users": 1100, "forms": 3, "schedulers": 3, "shifts": 1800, "operations": OPERATIONS}
"""Several parents per fan-out and listings of several pages."""


def tables(warehouse: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table of dataset ``connecteam`` (dlt's own tables and columns left out), its rows
    sorted."""
    names = [
        r[0]
        for r in query(
            warehouse,
            "select table_name from information_schema.tables where table_schema = 'connecteam' "
            "and table_name not like '\\_dlt%' escape '\\'",
        )
    ]
    out = {}
    for name in sorted(names):
        columns = [
            r[0]
            for r in query(
                warehouse,
                "select column_name from information_schema.columns where table_schema = "
                f"'connecteam' and table_name = '{name}' and column_name not like '\\_dlt%' "
                "escape '\\' order by column_name",
            )
        ]
        listed = ", ".join(f'"{c}"' for c in columns)
        out[name] = query(warehouse, f"select {listed} from connecteam.{name} order by all")
    return out


def sync_into(
    monkeypatch, folder: Path, in_flight: int, streams: tuple[str, ...] = tuple(STREAMS)
) -> tuple[Path, SyncSummary]:
    """One sync of ``streams`` into a warehouse of its own under ``folder``."""
    warehouse = folder / "warehouse.duckdb"
    monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(warehouse))
    monkeypatch.setenv("SOURCES__CONNECTEAM__MAX_IN_FLIGHT", str(in_flight))
    summary = run_sync(streams, project=resolve())
    return warehouse, summary


def test_concurrent_and_one_at_a_time_syncs_load_the_same_rows(
    start_emulator, tmp_path, monkeypatch
):
    server = start_emulator(latency=0.01, paging_total=True, **SIZE)
    point_at(monkeypatch, server)

    server.control("stats/reset")
    one, one_summary = sync_into(monkeypatch, tmp_path / "one", 1)
    one_stats = server.stats()
    server.control("stats/reset")
    four, four_summary = sync_into(monkeypatch, tmp_path / "four", 4)
    four_stats = server.stats()

    assert one_summary.failed_streams == four_summary.failed_streams == {}
    assert one_stats["peak_in_flight"] == 1
    assert 2 <= four_stats["peak_in_flight"] <= 4
    # the same requests: nothing fetched twice, no page asked past paging.total
    assert four_stats["requests"] == one_stats["requests"]
    expected, got = tables(one), tables(four)
    assert sum(len(rows) for rows in expected.values()) > 5000
    assert {"shifts", "time_activities", "timesheets", "form_submissions", "tasks"} <= set(got)
    assert got == expected


def test_date_windows_of_several_clocks_at_once_load_the_same_rows(
    start_emulator, tmp_path, monkeypatch
):
    server = start_emulator(latency=0.01, users=40, schedulers=1, shifts=10, operations=OPERATIONS)
    point_at(monkeypatch, server)
    # a first run from mid-August: 2 time-activity and 3 timesheet windows per clock
    monkeypatch.setenv("SOURCES__CONNECTEAM__ACTIVITIES_BACKFILL_START", "2026-08-15")
    streams = ("time_clocks", "time_activities", "timesheets", "manual_breaks")

    one, _ = sync_into(monkeypatch, tmp_path / "one", 1, streams)
    server.control("stats/reset")
    four, _ = sync_into(monkeypatch, tmp_path / "four", 4, streams)

    stats = server.stats()
    assert stats["requests"]["/time-clock/v1/time-clocks/{timeClockId}/timesheet"] == 3 * 3
    assert 2 <= stats["peak_in_flight"] <= 4
    expected, got = tables(one), tables(four)
    assert len(expected["time_activities"]) == 300 and len(expected["timesheets"]) > 100
    assert got == expected


def test_a_small_budget_with_requests_in_flight_never_draws_a_429(
    start_emulator, warehouse, monkeypatch
):
    # 12 requests per 2-second window, each answer 50 ms late, 4 in flight: budget-bound
    server = start_emulator(
        minute_limit=12, window_seconds=2.0, latency=0.05, paging_total=True,
        users=2600, forms=2, schedulers=3, shifts=6000,
    )  # fmt: skip
    point_at(monkeypatch, server)
    monkeypatch.setenv("SOURCES__CONNECTEAM__MAX_IN_FLIGHT", "4")

    summary = run_sync(CORE, project=resolve())

    stats = server.stats()
    assert stats["total"] > 2 * 12  # more than two windows' budget
    assert stats["statuses"].get("429", 0) == 0
    assert summary.throttled == 0 and summary.retries == 0
    assert summary.paced_seconds > 0  # the budget, not the latency, set the pace
    assert 2 <= stats["peak_in_flight"] <= 4
    (users,) = query(warehouse, "select count(*) from connecteam.users")[0]
    assert users == 2600


def test_max_in_flight_below_one_is_a_configuration_error(start_emulator, warehouse):
    server = start_emulator(users=5)
    env = {**cli_env(server, warehouse), "SOURCES__CONNECTEAM__MAX_IN_FLIGHT": "0"}
    done = subprocess.run(
        [*WFM_SYNC, "sync", "--streams", "users"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 2, done.stderr
    assert "SOURCES__CONNECTEAM__MAX_IN_FLIGHT must be at least 1" in done.stderr
    assert server.stats()["total"] == 0


def test_a_request_waits_as_long_as_the_timeout_setting_says(
    start_emulator, monkeypatch, warehouse
):
    server = start_emulator(latency=0.6, users=5, forms=0, schedulers=0, shifts=0)
    point_at(monkeypatch, server)
    monkeypatch.setenv("SOURCES__CONNECTEAM__MAX_ATTEMPTS", "2")
    monkeypatch.setenv("SOURCES__CONNECTEAM__BACKOFF_BASE", "0.01")
    monkeypatch.setenv("SOURCES__CONNECTEAM__TIMEOUT", "0.2")
    slow = run_sync(("users",), project=resolve())
    assert "users" in slow.failed_streams and "timeout" in slow.failed_streams["users"].lower()
    monkeypatch.setenv("SOURCES__CONNECTEAM__TIMEOUT", "5")
    assert run_sync(("users",), project=resolve()).rows["users"] == 5
    monkeypatch.setenv("SOURCES__CONNECTEAM__TIMEOUT", "0")
    with pytest.raises(ConnecteamConfigError, match="SOURCES__CONNECTEAM__TIMEOUT must be"):
        run_sync(("users",), project=resolve())


def test_the_emulator_command_takes_its_latency_in_milliseconds():
    with EmulatorProcess(users=5, forms=1, schedulers=1, shifts=2, latency_ms=250) as emulator:
        options = httpx.get(emulator.url + "/_emulator/config", timeout=10).json()["options"]
    assert options["latency"] == 0.25
