"""``wfm-sync demo`` end to end, smaller than the default so the suite stays quick."""

from __future__ import annotations

import os
import re
import subprocess

from conftest import WFM_SYNC, query


def test_demo_syncs_twice_and_shows_counts_and_queries(tmp_path):
    warehouse = tmp_path / "demo" / "warehouse.duckdb"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOURCES__", "DESTINATION__"))}
    result = subprocess.run(
        [
            *WFM_SYNC,
            "demo",
            "--users",
            "400",
            "--shifts",
            "3000",
            "--webhook-events",
            "300",
            "--warehouse",
            str(warehouse),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    out = result.stdout
    assert "run 1: nightly_sync" in out and "run 2: nightly_sync" in out
    assert re.search(r"users\s+\S+\s+400\b", out)  # run 1 loads every user
    assert re.search(r"users\s+\S+\s+25\b", out)  # run 2 picks up exactly the 25 edited users
    assert re.search(r"connecteam\.shifts\s+\S+\s+3,010\b", out)  # 3000 + 10 added rows
    assert str(warehouse.resolve()) in out
    assert out.count("select ") >= 3  # the example queries, printed with their answers
    assert query(warehouse, "select count(*) from connecteam.shifts where is_deleted")[0][0] == 5
    assert re.search(r"all\s+\S+\s+300\b", out)  # run 1 folds the first burst, every family
    assert re.search(r"all\s+\S+\s+30\b", out)  # run 2 folds the second
    assert query(warehouse, "select count(distinct family) from webhooks.events")[0][0] == 8
    assert query(warehouse, "select count(*) from webhooks.events")[0][0] == 330
    assert out.count("dbt build: ") == 2 and out.count("tables to ") == 2
    assert "fct_daily_hours" in out and "fct_timesheet_periods" in out  # the closing lines
    snapshot = warehouse.parent / "analytics.duckdb"
    assert query(snapshot, "select count(*) from marts.fct_shifts")[0][0] == 3010
