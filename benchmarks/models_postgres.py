"""Benchmark: the demo's account loaded and modelled on PostgreSQL, next to DuckDB.

    .venv/bin/python -m benchmarks.models_postgres --postgres postgresql://user:pass@127.0.0.1:5432/db

Starts the emulator with the account ``wfm-sync demo`` emulates
(:func:`emulator.config.demo_config`: 3,000 users, 30,000 shift rows), then, into a fresh DuckDB
file and into a new database on the given PostgreSQL server (created and dropped by the benchmark;
the URL names any existing database to connect to), runs the installed ``wfm-sync sync --steps
sync`` once and ``wfm-sync models build --no-publish`` (every model, data test and unit test)
``--runs`` times. The reference, in the same run, is DuckDB. Prints a Markdown table of wall times
(medians).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile

from benchmarks._commands import timed
from benchmarks._emulator import EmulatorProcess


def main() -> None:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--postgres", required=True, help="URL of a PostgreSQL server database")
    parser.add_argument("--runs", type=int, default=2, help="models builds per warehouse")
    args = parser.parse_args()

    import psycopg2

    from emulator.config import demo_config

    config = demo_config()
    name = f"wfm_bench_{os.getpid()}"
    admin = psycopg2.connect(args.postgres)
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f"create database {name}")
    database = args.postgres.rsplit("/", 1)[0] + f"/{name}"
    try:
        with tempfile.TemporaryDirectory() as tmp, EmulatorProcess(
            users=config.users, shifts=config.shifts, forms=config.forms,
            schedulers=config.schedulers, time_activities=config.operations.time_activities,
            minute_limit=100_000, day_limit=1_000_000,
        ) as emulator:  # fmt: skip
            base = {
                k: v for k, v in os.environ.items() if not k.startswith(("DESTINATION__", "WFM_"))
            }
            base.update(
                SOURCES__CONNECTEAM__BASE_URL=emulator.url,
                SOURCES__CONNECTEAM__API_KEY="emulator-key",
                WEBHOOKS__INBOX_URL=f"sqlite:///{tmp}/inbox.sqlite3",
            )
            sides = {
                "DuckDB (reference)": dict(
                    base,
                    DESTINATION__DUCKDB__CREDENTIALS=f"{tmp}/duckdb/warehouse.duckdb",
                    WFM_SYNC_DBT_TARGET_DIR=f"{tmp}/dbt-duckdb",
                ),
                "PostgreSQL": dict(
                    base,
                    WFM_SYNC_DESTINATION="postgres",
                    DESTINATION__POSTGRES__CREDENTIALS=database,
                    DESTINATION__DUCKDB__CREDENTIALS=f"{tmp}/postgres/unused.duckdb",
                    WFM_SYNC_DBT_TARGET_DIR=f"{tmp}/dbt-postgres",
                ),
            }
            figures = {}
            for side, env in sides.items():
                sync = timed(env, "sync", "--steps", "sync")
                builds = [timed(env, "models", "build", "--no-publish") for _ in range(args.runs)]
                figures[side] = (sync, statistics.median(builds))
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f"drop database if exists {name}")
        admin.close()
    activities = config.operations.time_activities
    print(f"\ndemo account: {config.users:,} users, {config.shifts:,} shift rows, "
          f"{activities:,} time activities; median of {args.runs} builds\n")  # fmt: skip
    print("| warehouse | full API sync, s | models build (53 models, tests, unit tests), s |")
    print("|---|---:|---:|")
    for side, (sync, build) in figures.items():
        print(f"| {side} | {sync:.1f} | {build:.1f} |")


if __name__ == "__main__":
    main()
