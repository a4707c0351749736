"""Several accounts in one warehouse (issue 46): two emulators, each its own account with its own
key, whose user and shift ids collide, synced side by side by the installed ``wfm-sync sync``
into one DuckDB file and into one PostgreSQL database. Each account's dataset holds exactly its
emulator's rows and nothing of the other's; with one emulator down the other account loads and
the command exits 1 naming the account that failed and its own setting."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import psycopg2
import pytest
from conftest import NOW
from support.cli import run_cli

from emulator import EmulatorServer

STREAMS = "users,schedulers,shifts"
"""What the tests sync: users (ids 1000.. in every emulator), schedulers and their shifts."""
DAY = 86_400


@pytest.fixture
def two_accounts(start_emulator: Callable[..., EmulatorServer]) -> dict[str, EmulatorServer]:
    """``north`` and ``south``: emulators of other seeds and sizes, each with its own key; users
    1000-1019 are in both (other people), and five of south's shifts near ``now`` carry ids of
    north's."""
    north = start_emulator(seed=1, users=30, shifts=200, api_key="key-north")
    south = start_emulator(seed=2, users=20, shifts=120, api_key="key-south")
    near = [row for row in shift_rows(north) if abs(row["startTime"] - NOW) < 5 * DAY]
    mine = [row for row in shift_rows(south) if abs(row["startTime"] - NOW) < 5 * DAY]
    for theirs, row in zip(near[:5], mine[:5], strict=True):
        row["id"] = theirs["id"]
    return {"north": north, "south": south}


def shift_rows(server: EmulatorServer) -> list[dict[str, Any]]:
    """Every V1 shift row the emulator holds (its live data: changing a row changes what it
    serves)."""
    return [row for rows in server.state.dataset.shifts.values() for row in rows]


def accounts_env(accounts: dict[str, EmulatorServer], base: Path) -> dict[str, str]:
    """``wfm-sync``'s environment naming each account in ``SOURCES__CONNECTEAM__ACCOUNTS__*``
    (no ``default`` account), the warehouse, inbox and run log under ``base``."""
    import os

    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SOURCES__", "DESTINATION__", "WFM_SYNC_", "WEBHOOKS__"))
    }
    env.update(
        DESTINATION__DUCKDB__CREDENTIALS=str(base / "warehouse.duckdb"),
        WEBHOOKS__INBOX_URL=f"sqlite:///{base / 'inbox.sqlite3'}",
        SOURCES__CONNECTEAM__BACKOFF_BASE="0.02",
        WFM_SYNC_NOW=str(NOW),
    )
    for name, server in accounts.items():
        prefix = f"SOURCES__CONNECTEAM__ACCOUNTS__{name.upper()}__"
        env[prefix + "BASE_URL"] = server.url
        env[prefix + "API_KEY"] = server.state.options.api_key
    return env


def loaded(fetch: Callable[[str], list[tuple[Any, ...]]], account: str) -> dict[str, set[Any]]:
    """The user ids (with names) and shift row ids (``<shiftId>:<slot>``) in ``account``'s
    dataset."""
    schema = f"connecteam_{account}"
    return {
        "users": set(fetch(f"select user_id, first_name, last_name from {schema}.users")),
        "shifts": {row[0] for row in fetch(f"select id from {schema}.shifts")},
    }


def expected(server: EmulatorServer) -> dict[str, set[Any]]:
    """What the emulator holds: every user (with names), every shift id."""
    users = server.state.dataset.users.values()
    return {
        "users": {(u["userId"], u["firstName"], u["lastName"]) for u in users},
        "shifts": {row["id"] for row in shift_rows(server)},
    }


def assert_each_account_its_own(
    accounts: dict[str, EmulatorServer], fetch: Callable[[str], list[tuple[Any, ...]]]
) -> None:
    """Every user of each emulator, exactly, in its account's dataset; every shift loaded is
    one of its own emulator's, the colliding ones in both; nothing of the other account."""
    north, south = (loaded(fetch, name) for name in ("north", "south"))
    want_north, want_south = expected(accounts["north"]), expected(accounts["south"])
    assert north["users"] == want_north["users"] and len(north["users"]) == 30
    assert south["users"] == want_south["users"] and len(south["users"]) == 20
    shared_ids = {u[0] for u in north["users"]} & {u[0] for u in south["users"]}
    assert len(shared_ids) == 20, "the premise: user ids collide between the accounts"
    assert north["users"] != south["users"]
    assert north["shifts"] <= want_north["shifts"] and south["shifts"] <= want_south["shifts"]
    colliding = north["shifts"] & south["shifts"]
    assert len(colliding) == 5, "the premise: five shift ids in both accounts' windows"
    assert south["shifts"] - colliding and not (south["shifts"] - colliding) & north["shifts"]


def duckdb_fetch(path: Path) -> Callable[[str], list[tuple[Any, ...]]]:
    def fetch(sql: str) -> list[tuple[Any, ...]]:
        with duckdb.connect(str(path), read_only=True) as connection:
            return connection.sql(sql).fetchall()

    return fetch


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

    def fetch(sql: str) -> list[tuple[Any, ...]]:
        with psycopg2.connect(postgres_database) as connection, connection.cursor() as cursor:
            cursor.execute(sql)
            return list(cursor.fetchall())

    assert_each_account_its_own(two_accounts, fetch)
    assert not (tmp_path / "warehouse.duckdb").exists()
