"""A new user's first runs: a brand-new ``PREFECT_HOME`` and ``DLT_DATA_DIR``, no Prefect server,
and both cores busy with other work. Nothing may wait for, or fail on, a helper server."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import WFM_SYNC, cli_env, query

from pipelines import STREAMS


@pytest.fixture
def busy_cores() -> Iterator[None]:
    """Two processes spinning on the CPU for the length of the test."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        yield
    finally:
        for burner in burners:
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
def test_first_sync_on_a_busy_machine_loads_every_stream(
    start_emulator, tmp_path, busy_cores
) -> None:
    server = start_emulator(users=300, forms=3, schedulers=2, shifts=1500)
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    env = fresh_env(cli_env(server, warehouse), tmp_path)
    done = subprocess.run([*WFM_SYNC, "sync"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    for stream in STREAMS:
        (rows,) = query(warehouse, f"select count(*) from connecteam.{stream}")[0]
        assert rows > 0, f"{stream}: no rows"
    assert (warehouse.parent / "analytics.duckdb").exists()  # models built and published
    # no temporary Prefect server was started: it would have created its database here
    assert not list(Path(env["PREFECT_HOME"]).glob("*.db"))


@pytest.mark.slow
def test_demo_on_a_busy_machine_with_a_fresh_home(tmp_path, busy_cores) -> None:
    import os

    warehouse = tmp_path / "demo" / "warehouse.duckdb"
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SOURCES__", "DESTINATION__"))}
    done = subprocess.run(
        [*WFM_SYNC, "demo", "--users", "300", "--shifts", "2000", "--webhook-events", "200",
         "--warehouse", str(warehouse)],
        env=fresh_env(base, tmp_path), capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "run 2: nightly_sync" in done.stdout
    snapshot = warehouse.parent / "analytics.duckdb"
    (users,) = query(snapshot, "select count(*) from marts.dim_users")[0]
    assert users >= 300
