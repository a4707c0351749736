"""Benchmark: a quiet nightly's models step (incremental marts) against a full build.

    .venv/bin/python -m benchmarks.models_incremental [--users 1000] [--days 365] [--runs 3]
        [--keep DIR]

Starts the emulator with ``--users`` users and a year (``--days``) of time activities (300
activities per user-year: punches, breaks, time off) and 20 shift rows per user, and syncs it
once with the installed ``wfm-sync sync --steps sync`` into a DuckDB file, the activities
backfilled over the whole span (``SOURCES__CONNECTEAM__ACTIVITIES_BACKFILL_START``; the
timesheets follow them). With ``--keep DIR`` the synced warehouse is kept in ``DIR`` and
reused by the next run with the same ``--keep``. The clock is pinned (``WFM_SYNC_NOW``).

On a copy of that warehouse, after a first build (the tables created), it alternates ``--runs``
times: ``wfm-sync models build --no-publish --full-refresh`` (every model and its data tests,
the marts rebuilt from all their history) and ``wfm-sync models build --no-publish`` (a quiet
nightly: nothing loaded since the last whole build, so the build plans only the models computed
against now, :mod:`pipelines.model_plan`). Neither runs dbt's unit tests (``make test`` does).
Prints the wall times (medians), their ratio, the nodes each ran, and per kind the seconds dbt's
nodes took (its ``run_results.json``): the incremental models, the other models, data tests,
unit tests.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks._commands import timed
from benchmarks._emulator import EmulatorProcess

ANCHOR = 1_795_132_800  # 2026-11-20 00:00 UTC: the emulator's data and the sync's clock
DAY = 86_400
INCREMENTAL = ("fct_daily_hours", "fct_labour_cost_daily", "int_user_days__changes")
"""The incremental marts and their change log (counted as "incremental models")."""
KINDS = ("incremental models", "other models", "data tests", "unit tests")


def node_seconds(target: Path) -> dict[str, float]:
    """Seconds dbt's nodes of the last run took, summed per kind of :data:`KINDS`, and under
    ``nodes`` how many ran."""
    results = json.loads((target / "run_results.json").read_text())["results"]
    found = dict.fromkeys(KINDS, 0.0)
    found["nodes"] = float(len(results))
    for result in results:
        kind, name = result["unique_id"].split(".")[0], result["unique_id"].split(".")[-1]
        if kind == "model":
            kind = "incremental models" if name in INCREMENTAL else "other models"
        else:
            kind = "unit tests" if kind == "unit_test" else "data tests"
        found[kind] += result["execution_time"]
    return found


def synced_warehouse(base: dict[str, str], folder: Path, users: int, days: int) -> Path:
    """The warehouse of one whole sync of the emulated account, made in ``folder`` unless a
    sync there finished (its ``synced`` mark); a folder a failed sync left is started over.
    Each request may take 300 s (``SOURCES__CONNECTEAM__TIMEOUT``): the emulator computes a
    large account's timesheet windows slowly."""
    warehouse, mark = folder / "warehouse.duckdb", folder / "synced"
    if mark.exists():
        return warehouse
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    with EmulatorProcess(
        users=users, shifts=20 * users, time_activities=300 * users * days // 365,
        activity_days=days, minute_limit=1_000_000, day_limit=10_000_000,
    ) as emulator:  # fmt: skip
        env = dict(
            base,
            SOURCES__CONNECTEAM__BASE_URL=emulator.url,
            SOURCES__CONNECTEAM__API_KEY="emulator-key",
            SOURCES__CONNECTEAM__ACTIVITIES_BACKFILL_START=str(ANCHOR - (days + 1) * DAY),
            SOURCES__CONNECTEAM__TIMEOUT="300",
            DESTINATION__DUCKDB__CREDENTIALS=str(warehouse),
        )
        seconds = timed(env, "sync", "--steps", "sync")
    mark.write_text(f"{seconds:.0f}\n")
    print(f"synced {users:,} users x {days} days in {seconds:.0f} s", file=sys.stderr)
    return warehouse


def main() -> None:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=1000)
    parser.add_argument("--days", type=int, default=365, help="days of time-activity history")
    parser.add_argument("--runs", type=int, default=3, help="alternations full / incremental")
    parser.add_argument("--keep", type=Path, help="folder keeping the synced warehouse")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith(("DESTINATION__", "WFM_"))}
        base.update(
            WFM_SYNC_NOW=str(ANCHOR),
            WEBHOOKS__INBOX_URL=f"sqlite:///{tmp}/inbox.sqlite3",
            WFM_SYNC_DBT_TARGET_DIR=f"{tmp}/dbt",
        )
        source = synced_warehouse(base, args.keep or Path(tmp) / "synced", args.users, args.days)
        copy = Path(tmp) / "built" / "warehouse.duckdb"
        copy.parent.mkdir()
        shutil.copy(source, copy)
        env = dict(base, DESTINATION__DUCKDB__CREDENTIALS=str(copy))
        timed(env, "models", "build", "--no-publish")  # the tables created
        runs: dict[str, list[float]] = {"full": [], "incremental": []}
        nodes: dict[str, list[dict[str, float]]] = {"full": [], "incremental": []}
        for _ in range(args.runs):
            for side, extra in (("full", ["--full-refresh"]), ("incremental", [])):
                runs[side].append(timed(env, "models", "build", "--no-publish", *extra))
                nodes[side].append(node_seconds(Path(tmp) / "dbt"))
    full, incremental = (statistics.median(runs[s]) for s in ("full", "incremental"))
    print(f"\n{args.users:,} users, {args.days} days of history; medians of {args.runs} "
          "alternations (wall seconds of `wfm-sync models build --no-publish`)\n")  # fmt: skip
    print("| build | wall, s | runs, s | nodes | " + " | ".join(f"{k}, s" for k in KINDS) + " |")
    print("|---|---:|---:|---:|" + "---:|" * len(KINDS))
    labels = {"full": "full (--full-refresh)", "incremental": "quiet nightly (planned)"}
    for key, label in labels.items():
        kinds = [statistics.median(n[k] for n in nodes[key]) for k in KINDS]
        spread = ", ".join(f"{r:.1f}" for r in runs[key])
        wall = statistics.median(runs[key])
        ran = int(statistics.median(n["nodes"] for n in nodes[key]))
        print(
            f"| {label} | {wall:.1f} | {spread} | {ran} | "
            + " | ".join(f"{k:.1f}" for k in kinds) + " |"
        )  # fmt: skip
    print(f"\nratio quiet nightly / full: {incremental / full:.2f} (target <= 0.30)")


if __name__ == "__main__":
    main()
