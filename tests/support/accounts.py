"""Two accounts for the tests of several accounts in one warehouse (issue 46): two emulators
whose user and shift ids collide, ``wfm-sync``'s environment naming both, and the check that
each account's dataset holds exactly its own emulator's rows."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
from conftest import NOW

from emulator import EmulatorServer

STREAMS = "users,schedulers,shifts"
"""What the tests sync: users (ids 1000.. in every emulator), schedulers and their shifts."""
DAY = 86_400


def start_two_accounts(
    start_emulator: Callable[..., EmulatorServer], **options: Any
) -> dict[str, EmulatorServer]:
    """``north`` and ``south``: emulators of other seeds and sizes, each with its own key (and
    ``options``: latency, ...); users 1000-1019 are in both (other people), and five of south's
    shifts near ``now`` carry ids of north's."""
    north = start_emulator(seed=1, users=30, shifts=200, api_key="key-north", **options)
    south = start_emulator(seed=2, users=20, shifts=120, api_key="key-south", **options)
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
    """A query function over the DuckDB file ``path``, read-only."""

    def fetch(sql: str) -> list[tuple[Any, ...]]:
        with duckdb.connect(str(path), read_only=True) as connection:
            return connection.sql(sql).fetchall()

    return fetch


def postgres_fetch(database: str) -> Callable[[str], list[tuple[Any, ...]]]:
    """A query function over the PostgreSQL database at the URL ``database``."""
    import psycopg2

    def fetch(sql: str) -> list[tuple[Any, ...]]:
        with psycopg2.connect(database) as connection, connection.cursor() as cursor:
            cursor.execute(sql)
            return list(cursor.fetchall())

    return fetch
