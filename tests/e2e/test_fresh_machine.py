"""A new user's first runs: a brand-new ``PREFECT_HOME`` and ``DLT_DATA_DIR``, no Prefect server,
and a busy CPU. Nothing may wait for, or fail on, a helper server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import WFM_SYNC, query

from pipelines import STREAMS


@pytest.fixture
def busy_core() -> Iterator[int]:
    """One CPU, the last this process may run on, with a process spinning on it for the length
    of the test; its number. A command pinned to it gets half a core at most, whatever the
    machine has (two spinners on two free cores took both from the rest of the suite, and left
    a machine of more cores idle)."""
    core = max(os.sched_getaffinity(0))
    burner = subprocess.Popen(["taskset", "-c", str(core), sys.executable, "-c", "while 1: pass"])
    try:
        yield core
    finally:
        burner.kill()
        burner.wait()


def fresh_env(base: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """``base`` with a new Prefect home and dlt data dir, and no Prefect API configured."""
    env = {k: v for k, v in base.items() if k != "PREFECT_API_URL"}
    env.update(
        PREFECT_HOME=str(tmp_path / "fresh-prefect-home"),
        DLT_DATA_DIR=str(tmp_path / "fresh-dlt-data"),
        WEBHOOKS__INBOX_URL=f"sqlite:///{tmp_path / 'inbox.sqlite3'}",
    )
    return env


@pytest.mark.slow
def test_demo_on_a_busy_machine_with_a_fresh_home_loads_every_stream(tmp_path, busy_core) -> None:
    """The first sync, the fold, the second sync, the models and the publish, with a brand-new
    Prefect home and dlt data folder, on one core that a spinning process keeps busy (one run
    for what were two: the first ``sync`` and the demo, both from a fresh home on a busy
    machine)."""
    warehouse = tmp_path / "demo" / "warehouse.duckdb"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SOURCES__", "DESTINATION__"))}
    env = fresh_env(base, tmp_path)
    done = subprocess.run(
        ["taskset", "-c", str(busy_core), *WFM_SYNC, "demo", "--users", "300", "--shifts",
         "2000", "--webhook-events", "200", "--warehouse", str(warehouse)],
        env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "run 2: nightly_sync" in done.stdout
    for stream in STREAMS:
        (rows,) = query(warehouse, f"select count(*) from connecteam.{stream}")[0]
        assert rows > 0, f"{stream}: no rows"
    snapshot = warehouse.parent / "analytics.duckdb"  # models built and published
    (users,) = query(snapshot, "select count(*) from marts.dim_users")[0]
    assert users >= 300
    # no temporary Prefect server was started: it would have created its database here
    assert not list(Path(env["PREFECT_HOME"]).glob("*.db"))
