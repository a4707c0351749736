"""``wfm-sync backfill``: a past period re-pulled in the provider's window sizes, into the raw
tables the nightly loads, exactly once per row, resumable after a kill, the nightly's state
untouched; bad input refused in one line before any work."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from conftest import API_KEY, WFM_SYNC, account_project, cli_env, query

from core.project import Project
from emulator.config import OperationsConfig
from sources.connecteam.windows import DAY_SECONDS, day_start

FIRST, LAST = date(2026, 7, 1), date(2026, 10, 15)
"""The period backfilled: before the nightly's windows at the suite's clock (shifts from
2026-10-21, time activities from 2026-10-16), inside the emulator's data (150 days back)."""
STREAMS = ("shifts", "time_activities")
CHUNKS = 4 + 2
"""Shifts in chunks of 31 days (4), time activities in the provider's 92 (2)."""
SIZE: dict[str, Any] = {
    "shifts": 900, "shift_days_back": 150,
    "operations": OperationsConfig(activity_days=150, time_activities=900),
}  # fmt: skip
SYNC = [
    sys.executable,
    "-c",
    "from pipelines import run_sync; from sources.configuration import resolve; "
    "run_sync(('shifts', 'time_activities'), project=resolve())",
]
SHIFT_KEYS = (
    "select scheduler_id, id from connecteam.shifts where end_time > {} and start_time < {}"
)
ACTIVITY_KEYS = (
    "select id from connecteam.time_activities where start_timestamp >= {} and start_timestamp < {}"
)


def span() -> tuple[int, int]:
    """The period as ``[start, end)`` epoch seconds (UTC)."""
    return day_start(FIRST), day_start(LAST) + DAY_SECONDS


def served_shifts(server) -> set[tuple[int, str]]:
    """Every ``(scheduler id, shift row id)`` the emulator serves overlapping the period."""
    start, end = span()
    return {
        (sid, str(r["id"]))
        for sid, rows in server.state.dataset.shifts.items()
        for r in rows
        if r["endTime"] > start and r["startTime"] < end
    }


def served_activities(server) -> set[str]:
    """Every time activity id the emulator serves starting in the period."""
    operations = server.state.dataset.operations
    return {
        str(record["id"])
        for clock in operations.time_clocks
        for user in operations.time_activities(clock, FIRST, LAST)
        for kind in ("shifts", "manualBreaks", "timeOffs")
        for record in user.get(kind) or []
    }


def loaded(warehouse: Path) -> tuple[set[tuple[int, str]], set[str]]:
    """The period's shift and activity keys in the warehouse, checking none is there twice."""
    start, end = span()
    shifts = query(warehouse, SHIFT_KEYS.format(start, end))
    activities = query(warehouse, ACTIVITY_KEYS.format(start, end))
    assert len(shifts) == len(set(shifts)), "a shift row loaded twice"
    assert len(activities) == len(set(activities)), "an activity loaded twice"
    for table, key in (("shifts", "scheduler_id, id"), ("time_activities", "id")):
        ((rows, keys),) = query(
            warehouse, f"select count(*), count(distinct ({key})) from connecteam.{table}"
        )
        assert rows == keys, f"{table}: {rows} rows, {keys} keys"
    return {(int(s), str(i)) for s, i in shifts}, {str(a) for (a,) in activities}


def project_for(server, warehouse: Path) -> Project:
    return account_project(warehouse, server.url, API_KEY)


def test_a_period_in_several_chunks_loads_exactly_the_rows_served(start_emulator, tmp_path):
    from pipelines.backfill import plan_chunks, run_backfill

    server = start_emulator(**SIZE)
    warehouse = tmp_path / "a" / "warehouse.duckdb"
    project = project_for(server, warehouse)
    assert [c.label for c in plan_chunks("time_activities", FIRST, LAST)] == [
        "2026-07-01..2026-09-30", "2026-10-01..2026-10-15",
    ]  # fmt: skip
    seen: list[str] = []
    summary = run_backfill(
        STREAMS, FIRST, LAST, project=project, on_chunk=lambda c: seen.append(c.label)
    )
    assert (summary.pulled, summary.skipped, len(seen)) == (CHUNKS, 0, CHUNKS)
    expected = served_shifts(server), served_activities(server)
    assert expected[0] and expected[1]
    assert loaded(warehouse) == expected
    assert summary.rows["shifts"] == len(expected[0])
    assert summary.rows["time_activities"] == len(expected[1])
    # nothing marked deleted; the emulator refuses (422) a window wider than the provider's
    assert query(warehouse, "select count(*) from connecteam.shifts where is_deleted") == [(0,)]

    # a finished period pulled again: every chunk again, nothing new, nothing twice
    again = run_backfill(STREAMS, FIRST, LAST, project=project)
    assert (again.pulled, again.skipped) == (CHUNKS, 0)
    assert again.rows.get("shifts", 0) == again.rows.get("time_activities", 0) == 0
    assert loaded(warehouse) == expected
    ((versions,),) = query(warehouse, "select count(*) from connecteam.shift_versions")
    assert versions == len(expected[0])  # a version per shift row, none for the unchanged


def test_a_first_backfill_over_the_nightlys_window_reloads_nothing_it_holds(
    start_emulator, tmp_path
):
    from pipelines import run_sync
    from pipelines.backfill import run_backfill

    server = start_emulator(**SIZE)
    warehouse = tmp_path / "n" / "warehouse.duckdb"
    project = project_for(server, warehouse)
    assert run_sync(("shifts",), project=project).rows["shifts"] > 0
    before = nightly_state(warehouse), query(warehouse, "select count(*) from connecteam.shifts")
    summary = run_backfill(["shifts"], date(2026, 10, 22), date(2026, 11, 30), project=project)
    assert summary.pulled == 2 and summary.rows.get("shifts", 0) == 0  # unchanged rows stay
    after = nightly_state(warehouse), query(warehouse, "select count(*) from connecteam.shifts")
    assert after == before


def backfill_state(warehouse: Path) -> dict[str, Any]:
    """The backfill pipeline's committed state: ``{"<stream>:<period>": {"done": [...]}}``."""
    path = warehouse.parent / "pipelines" / "connecteam_backfill" / "state.json"
    try:
        state = json.loads(path.read_text())
    except (OSError, ValueError):  # not written yet, or being written
        return {}
    return dict(state.get("sources", {}).get("connecteam_backfill", {}).get("backfills", {}))


def chunks_done(warehouse: Path) -> int:
    return sum(len(entry.get("done", [])) for entry in backfill_state(warehouse).values())


def nightly_state(warehouse: Path) -> tuple[bytes, list[tuple[Any, ...]]]:
    """The nightly pipeline's local state file and its rows in ``_dlt_pipeline_state``."""
    local = (warehouse.parent / "pipelines" / "connecteam" / "state.json").read_bytes()
    rows = query(
        warehouse,
        "select version, engine_version, state, version_hash from "
        "connecteam._dlt_pipeline_state where pipeline_name = 'connecteam' order by version",
    )
    return local, rows


def backfill_command(env: dict[str, str]) -> list[str]:
    return [*WFM_SYNC, "backfill", "--streams", ",".join(STREAMS),
            "--from", FIRST.isoformat(), "--to", LAST.isoformat()]  # fmt: skip


def kill_after_first_chunk(env: dict[str, str], warehouse: Path) -> int:
    """Start the backfill, SIGKILL it as soon as its state commits a first chunk; the chunks
    its state held done when it died."""
    process = subprocess.Popen(backfill_command(env), env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 180
    try:
        while process.poll() is None and time.monotonic() < deadline:
            if chunks_done(warehouse) >= 1:
                process.send_signal(signal.SIGKILL)
                process.wait(10)
                return chunks_done(warehouse)
            time.sleep(0.005)
        stderr = process.stderr.read().decode()[-2000:] if process.stderr else ""
        raise AssertionError(f"the backfill ended before it could be killed: {stderr}")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


@pytest.mark.slow
def test_a_backfill_killed_halfway_and_run_again_loads_the_period_exactly_once(
    start_emulator, tmp_path
):
    # each answer takes 50 ms: a chunk lasts long enough to be killed after the first one
    server = start_emulator(latency=0.05, **SIZE)
    warehouse = tmp_path / "b" / "warehouse.duckdb"
    env = cli_env(server, warehouse)
    nightly = subprocess.run(SYNC, env=env, capture_output=True, text=True, timeout=300)
    assert nightly.returncode == 0, nightly.stderr[-3000:]
    before = nightly_state(warehouse)
    assert b'"backfilled"' in before[0]  # the nightly's window state exists to be kept

    done_at_kill = kill_after_first_chunk(env, warehouse)
    assert 1 <= done_at_kill < CHUNKS

    server.control("stats/reset")
    rerun = subprocess.run(backfill_command(env), env=env, capture_output=True, text=True,
                           timeout=300)  # fmt: skip
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    out = " ".join(rerun.stdout.split())
    pulled = CHUNKS - done_at_kill
    assert f"{pulled} chunk(s) pulled, {done_at_kill} skipped as already done" in out, out
    assert rerun.stdout.count("skipped (loaded by an earlier run)") == done_at_kill
    # only the chunks left were asked for: one request per scheduler or clock and chunk, plus
    # the two parent listings
    requests = int(server.stats()["total"])
    assert requests <= 2 + pulled * 3, requests

    assert loaded(warehouse) == (served_shifts(server), served_activities(server))
    assert nightly_state(warehouse) == before  # the nightly's cursors and windows unchanged
    assert all(entry["complete"] for entry in backfill_state(warehouse).values())


def refused(tmp_path: Path, *args: str) -> str:
    """``wfm-sync backfill <args>`` against nothing: exit 2, one line, nothing created."""
    warehouse = tmp_path / "c" / "warehouse.duckdb"

    class Nowhere:
        url = "http://127.0.0.1:9"

    done = subprocess.run([*WFM_SYNC, "backfill", *args], env=cli_env(Nowhere(), warehouse),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert not warehouse.parent.exists()
    return lines[0]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--streams", "shifts,userz"), "'userz' is unknown"),
        (("--streams", "users"), "'users' is not windowed"),
        (("--streams", "shifts", "--from", "2025-06-30", "--to", "2025-01-01"),
         "--from 2025-06-30 is after --to 2025-01-01"),
        (("--streams", "shifts", "--from", "2025-13-01"), "--from '2025-13-01' is not an ISO date"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_in_one_line_before_any_work(tmp_path, args, says):
    given = dict(zip(args[::2], args[1::2], strict=True))
    options = {"--from": "2025-01-01", "--to": "2025-06-30", **given}
    line = refused(tmp_path, *(part for pair in options.items() for part in pair))
    assert line.startswith("backfill: ") and says in line, line
    if "windowed" in says or "unknown" in says:
        assert line.endswith(
            "streams that can be backfilled: shifts, time_activities, timesheets, "
            "time_off_requests, scheduler_unavailabilities, pay_rates, daily_sales"
        ), line
