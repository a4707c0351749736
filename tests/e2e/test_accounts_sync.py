"""Several accounts in one warehouse (issue 46): two emulators, each its own account with its own
key, whose user and shift ids collide, synced side by side by the installed ``wfm-sync sync``
into one DuckDB file and into one PostgreSQL database. Each account's dataset holds exactly its
emulator's rows and nothing of the other's; with one emulator down the other account loads and
the command exits 1 naming the account that failed and its own setting."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.accounts import (
    STREAMS,
    accounts_env,
    assert_each_account_its_own,
    duckdb_fetch,
    expected,
    loaded,
    postgres_fetch,
    start_two_accounts,
)
from support.cli import run_cli

from emulator import EmulatorServer


@pytest.fixture
def two_accounts(start_emulator: Callable[..., EmulatorServer]) -> dict[str, EmulatorServer]:
    """The two accounts of :func:`support.accounts.start_two_accounts`."""
    return start_two_accounts(start_emulator)


def test_two_accounts_sync_side_by_side_into_one_duckdb_file_each_in_its_own_dataset(
    two_accounts: dict[str, EmulatorServer], tmp_path: Path
) -> None:
    env = accounts_env(two_accounts, tmp_path)
    result = run_cli("sync", "--steps", "sync", "--streams", STREAMS, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "account north" in result.stdout and "account south" in result.stdout
    fetch = duckdb_fetch(tmp_path / "warehouse.duckdb")
    assert_each_account_its_own(two_accounts, fetch)
    # each account's dlt state is its own pipeline's, in its own dataset
    for name in two_accounts:
        ((pipelines,),) = fetch(
            f"select list(distinct pipeline_name) from connecteam_{name}._dlt_pipeline_state"
        )
        assert pipelines == [f"connecteam_{name}"]
    # the run log names each account's runs, and the two accounts' runs overlap in time
    runs = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    spans = {
        name: [(r["started_at"], r["started_at"] + r["duration_seconds"]) for r in runs
               if r["account"] == name and r["outcome"] == "succeeded"]
        for name in two_accounts
    }  # fmt: skip
    assert len(runs) == sum(map(len, spans.values())), runs
    assert any(
        a_start < b_end and b_start < a_end
        for a_start, a_end in spans["north"]
        for b_start, b_end in spans["south"]
    ), spans
    # every request of each account went to its own emulator with its own key
    for server in two_accounts.values():
        assert server.stats()["total"] > 0
        assert server.state.statuses.get(401, 0) == 0


def test_one_account_down_the_other_loads_and_the_command_names_it(
    two_accounts: dict[str, EmulatorServer], tmp_path: Path
) -> None:
    env = accounts_env(two_accounts, tmp_path)
    two_accounts["south"].stop()
    result = run_cli("sync", "--steps", "sync", "--streams", STREAMS, env=env)
    assert result.returncode == 1, result.stderr[-3000:]
    assert "sync failed for 1 account(s)" in result.stderr
    assert "  - south: " in result.stderr
    assert "SOURCES__CONNECTEAM__ACCOUNTS__SOUTH__BASE_URL" in result.stderr
    fetch = duckdb_fetch(tmp_path / "warehouse.duckdb")
    assert loaded(fetch, "north")["users"] == expected(two_accounts["north"])["users"]
    schemas = {row[0] for row in fetch("select schema_name from information_schema.schemata")}
    assert "connecteam_south" not in schemas
    runs = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    outcomes = {(r["account"], r["outcome"]) for r in runs if r["job"] == "sync"}
    assert ("north", "succeeded") in outcomes and ("south", "failed") in outcomes
    assert ("north", "failed") not in outcomes
    # status says which account failed, and shows each account's tables
    shown = run_cli("status", "--json", env=env)
    assert shown.returncode == 1, shown.stderr[-3000:]
    report = json.loads(shown.stdout)
    jobs = {job["job"]: job["outcome"] for job in report["jobs"]}
    assert jobs["sync:north"] == "succeeded" and jobs["sync:south"] == "failed"
    assert "sync" not in jobs
    assert any(p.startswith("the last sync of account south failed") for p in report["problems"])
    assert not any("account north" in p for p in report["problems"])
    rows = {(t["dataset"], t["table"]): t["rows"] for t in report["tables"]}
    assert rows[("connecteam_north", "users")] == 30
    assert rows[("connecteam_south", "users")] is None


def test_an_account_not_configured_is_refused_before_any_request(
    two_accounts: dict[str, EmulatorServer], tmp_path: Path
) -> None:
    env = accounts_env(two_accounts, tmp_path)
    result = run_cli("sync", "--steps", "sync", "--accounts", "north,west", env=env)
    assert result.returncode == 2
    assert "'west'" in result.stderr and "north, south" in result.stderr
    assert all(server.stats()["total"] == 0 for server in two_accounts.values())


@pytest.fixture
def postgres_database(postgres_cluster: str) -> Iterator[str]:
    """A fresh database on the session's PostgreSQL server."""
    from support.servers import fresh_database

    yield fresh_database(postgres_cluster, "accounts_sync")


def test_two_accounts_sync_side_by_side_into_one_postgresql_database(
    two_accounts: dict[str, EmulatorServer], tmp_path: Path, postgres_database: str
) -> None:
    env = dict(
        accounts_env(two_accounts, tmp_path),
        WFM_SYNC_DESTINATION="postgres",
        DESTINATION__POSTGRES__CREDENTIALS=postgres_database,
    )
    result = run_cli("sync", "--steps", "sync", "--streams", STREAMS, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    assert_each_account_its_own(two_accounts, postgres_fetch(postgres_database))
    assert not (tmp_path / "warehouse.duckdb").exists()
