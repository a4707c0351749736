"""``wfm-sync sync`` and ``wfm-sync models build`` on a PostgreSQL warehouse
(``WFM_SYNC_DESTINATION=postgres``): sync, fold and the dbt models run there, publish (DuckDB
only) is skipped with a note, and the database password reaches no output, log or file. The
emulator and PostgreSQL are real servers (tests/servers.py); the installed ``wfm-sync`` runs."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import psycopg2
import pytest
from conftest import WFM_SYNC, cli_env
from support.servers import free_port, fresh_database

pytestmark = pytest.mark.slow

MARTS_DIR = Path(__file__).resolve().parents[2] / "sql" / "models" / "marts"
MARTS = sorted(p.stem for p in MARTS_DIR.glob("*.sql"))
"""Every mart, by its model file's name (sql/models/marts/*.sql)."""
PASSWORD = "wfm-test"
"""The test server's password (tests/servers.py), carried by every database URL here."""


def postgres_env(server: Any, side: Path, database: str) -> dict[str, str]:
    """``wfm-sync``'s environment for a PostgreSQL warehouse; the run log, dlt's working
    directory and the inbox go to ``side`` (no DuckDB file is made there)."""
    return dict(
        cli_env(server, side / "warehouse.duckdb"),
        WFM_SYNC_DESTINATION="postgres",
        DESTINATION__POSTGRES__CREDENTIALS=database,
        WEBHOOKS__INBOX_URL=f"sqlite:///{side / 'inbox.sqlite3'}",
    )


def wfm_sync(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WFM_SYNC, *args], env=env, capture_output=True, text=True,
                          timeout=900)  # fmt: skip


def files_holding(text: str, *folders: Path) -> list[Path]:
    """The files under ``folders`` whose bytes contain ``text``."""
    files = [f for folder in folders for f in folder.rglob("*") if f.is_file()]
    assert files, folders
    return [f for f in files if text.encode() in f.read_bytes()]


def mart_counts(database: str) -> dict[str, int]:
    """``select count(*)`` of every base table in schema ``marts``, by table name."""
    with psycopg2.connect(database) as connection, connection.cursor() as cursor:
        cursor.execute(
            "select table_name from information_schema.tables "
            "where table_schema = 'marts' and table_type = 'BASE TABLE'"
        )
        tables = sorted(name for (name,) in cursor.fetchall())
        counts = {}
        for table in tables:
            cursor.execute(f'select count(*) from marts."{table}"')
            counts[table] = int(cursor.fetchone()[0])
    connection.close()
    return counts


def test_sync_builds_every_mart_in_postgresql_and_skips_publish_without_showing_the_password(
    postgres: str, start_emulator: Any, tmp_path: Path
) -> None:
    server = start_emulator(users=60, shifts=400, schedulers=2, forms=3, seed=21)
    database = fresh_database(postgres, "synced")
    assert f":{PASSWORD}@" in database  # the URL the commands get carries the password
    side = tmp_path / "pg-side"
    env = postgres_env(server, side, database)

    done = wfm_sync(env, "sync")  # the default steps: sync, fold, models, publish
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert "publish skipped" in done.stdout and "schema marts" in done.stdout
    assert "dbt build: " in done.stdout
    assert not list(side.glob("*.duckdb")) and not (side / "marts").exists()  # nothing published

    counts = mart_counts(database)
    assert sorted(counts) == MARTS  # every mart, as a table in schema marts
    assert counts["dim_users"] >= 60 and counts["fct_shifts"] > 0, counts

    status = wfm_sync(env, "status", "--json")
    assert status.returncode == 0, (status.stdout + status.stderr)[-4000:]
    report = json.loads(status.stdout)
    port = database.split("@", 1)[1].split(":", 1)[1].split("/", 1)[0]
    assert report["warehouse"] == f"postgresql://wfm:***@127.0.0.1:{port}/synced"
    assert "publish" not in {job["job"] for job in report["jobs"]}  # DuckDB only
    shown = {t["table"]: t["rows"] for t in report["tables"] if t["dataset"] == "marts"}
    assert shown == counts  # the rows status shows are what select count(*) gives
    fresh = [t for t in report["tables"] if t["dataset"] == "connecteam" and t["newest"]]
    assert fresh  # the source's freshness rules read on PostgreSQL too

    outputs = output + status.stdout + status.stderr
    assert PASSWORD not in outputs
    dbt_dir = Path(os.environ["WFM_SYNC_DBT_TARGET_DIR"])  # dbt's artifacts and its logs/
    assert (dbt_dir / "logs").is_dir()
    assert files_holding(PASSWORD, dbt_dir, tmp_path) == []  # run log, dlt, Prefect, dbt


def test_a_failing_test_or_an_unreachable_database_is_reported_without_the_password(
    postgres: str, start_emulator: Any, tmp_path: Path
) -> None:
    server = start_emulator(users=30, shifts=40, schedulers=1, forms=1, seed=22)
    database = fresh_database(postgres, "failing")
    side = tmp_path / "pg-side"
    env = postgres_env(server, side, database)
    loaded = wfm_sync(env, "sync", "--streams", "users", "--steps", "sync")
    assert loaded.returncode == 0, loaded.stderr[-4000:]
    with psycopg2.connect(database) as connection, connection.cursor() as cursor:
        cursor.execute("insert into connecteam.users select * from connecteam.users "
                       "order by user_id limit 1")  # fmt: skip
    connection.close()

    # a failing data test: named, with its offending rows re-queried from PostgreSQL
    failed = wfm_sync(env, "models", "build", "--select", "stg_connecteam__users")
    assert failed.returncode == 1, failed.stdout[-3000:]
    assert "primary_key_stg_connecteam__users_user_id" in failed.stderr
    assert "offending rows (unique_field, n_records)" in failed.stderr
    assert "publish skipped" not in failed.stdout  # nothing after a failed build

    # a database dbt cannot reach: where it tried (password hidden) and the setting to fix
    where = database.split("@", 1)[1].split("/", 1)[0]
    closed = database.replace(where, f"127.0.0.1:{free_port()}")
    unreachable = wfm_sync(dict(env, DESTINATION__POSTGRES__CREDENTIALS=closed),
                           "models", "build", "--select", "stg_connecteam__users")  # fmt: skip
    assert unreachable.returncode == 1
    assert "DESTINATION__POSTGRES__CREDENTIALS" in unreachable.stderr
    assert "postgresql://wfm:***@127.0.0.1:" in unreachable.stderr

    # no credentials at all: the setting named, nothing else tried; a configuration error (2)
    missing = wfm_sync({k: v for k, v in env.items() if k != "DESTINATION__POSTGRES__CREDENTIALS"},
                       "models", "build")  # fmt: skip
    assert missing.returncode == 2
    assert "needs DESTINATION__POSTGRES__CREDENTIALS" in missing.stderr

    outputs = [r.stdout + r.stderr for r in (loaded, failed, unreachable, missing)]
    assert not [o for o in outputs if PASSWORD in o]
    dbt_dir = Path(os.environ["WFM_SYNC_DBT_TARGET_DIR"])
    assert files_holding(PASSWORD, dbt_dir, tmp_path) == []
