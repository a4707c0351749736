"""Upgrading a warehouse built before accounts were named (issue 46): no migration step.

``tests/data/upgrade/warehouse-0591768.duckdb.gz`` is the warehouse that wfm-sync at commit
0591768 (the last before accounts were used) built with ``wfm-sync sync --steps sync --streams
users,schedulers,shifts`` against the emulator of seed 1 (30 users, 200 shift rows, anchored at
the suite's ``ANCHOR``, ``WFM_SYNC_NOW`` the suite's ``NOW``), its dlt working folder left
behind. Today's wfm-sync, with a second account configured beside it, keeps syncing the old
account as ``default`` where it was (its dlt state taken up from the warehouse: nothing changed
at the provider, nothing is loaded again) and adds the new account's dataset beside it."""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Callable
from pathlib import Path

from conftest import ROOT
from support.accounts import STREAMS, accounts_env, duckdb_fetch, expected, loaded
from support.cli import run_cli

from emulator import EmulatorServer

FIXTURE = ROOT / "tests" / "data" / "upgrade" / "warehouse-0591768.duckdb.gz"


def test_a_warehouse_of_one_account_takes_a_second_account_without_migration(
    start_emulator: Callable[..., EmulatorServer], tmp_path: Path
) -> None:
    warehouse = tmp_path / "warehouse.duckdb"
    with gzip.open(FIXTURE) as packed, warehouse.open("wb") as unpacked:
        shutil.copyfileobj(packed, unpacked)
    old = start_emulator(seed=1, users=30, shifts=200, api_key="key-old")
    south = start_emulator(seed=2, users=20, shifts=120, api_key="key-south")
    fetch = duckdb_fetch(warehouse)
    keys = {"users": "user_id", "shifts": "scheduler_id, id"}
    counted = "select count(*), count(distinct ({key})) from connecteam.{table}"
    before = {table: fetch(counted.format(key=key, table=table))[0] for table, key in keys.items()}
    assert before == {"users": (30, 30), "shifts": (200, 200)}

    env = dict(
        accounts_env({"south": south}, tmp_path),
        SOURCES__CONNECTEAM__BASE_URL=old.url,
        SOURCES__CONNECTEAM__API_KEY="key-old",
    )
    result = run_cli("sync", "--steps", "sync", "--streams", STREAMS, env=env)
    assert result.returncode == 0, result.stderr[-3000:]

    # the old account is `default`, in the dataset and pipeline it always had
    for table, (rows, _) in before.items():
        ((count, keys),) = fetch(
            f"select count(*), count(distinct {'user_id' if table == 'users' else 'id'}) "
            f"from connecteam.{table}"
        )
        assert count == keys == rows, table
    ((pipelines,),) = fetch(
        "select list(distinct pipeline_name) from connecteam._dlt_pipeline_state"
    )
    assert pipelines == ["connecteam"]
    runs = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    default_rows = [r["details"]["rows"] for r in runs if r["account"] == "default"]
    assert default_rows and all(not any(rows.values()) for rows in default_rows), default_rows
    # the new account beside it
    assert loaded(fetch, "south")["users"] == expected(south)["users"]
