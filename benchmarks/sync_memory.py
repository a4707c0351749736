"""Benchmark: peak memory of a whole API sync per stream group, at an account's size and at half
of it, and per setting.

    .venv/bin/python -m benchmarks.sync_memory --users 40000 [--data spec --spec-width wide]
        [--setting WFM_SYNC_DUCKDB_MEMORY_LIMIT=256MB] [--setting ...]

For each size (``--users`` and half of it; shifts 0.8 per user, time activities 0.5 per user,
the other operations streams fixed) the emulator serves the account (its own process, no latency,
no rate limit), and each setting (a comma-separated list of environment variables; none: the
defaults) runs ``run_sync`` of each stream group in a fresh child process into a fresh DuckDB
file. Reported per run: seconds, rows, and the child's own peak resident memory (``VmHWM``)
overall and per dlt step (the child of :mod:`benchmarks.sync_throughput`). The reference is the
same sync at half the size in the same run: memory that does not grow with the account is within
10 % of it (issue 44).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ._emulator import EmulatorProcess
from .sync_throughput import CHILD, FOUNDATION, OPERATIONS

GROUPS = {"foundation": FOUNDATION, "operations": OPERATIONS}


def run_group(url: str, streams: str, extra: dict[str, str]) -> dict[str, object]:
    """One ``run_sync`` of ``streams`` against ``url`` in a child process with ``extra`` in its
    environment; the child's JSON summary (``seconds``, ``rows``, ``peaks`` per step in MiB)."""
    work = Path(tempfile.mkdtemp(prefix="wfm-memory-"))
    env = dict(
        os.environ,
        RUNTIME__DLTHUB_TELEMETRY="false",
        SOURCES__CONNECTEAM__BASE_URL=url,
        SOURCES__CONNECTEAM__API_KEY="bench",
        DESTINATION__DUCKDB__CREDENTIALS=str(work / "warehouse.duckdb"),
        DLT_DATA_DIR=str(work / "dlt"),
        **extra,
    )
    out = subprocess.run(
        [sys.executable, "-c", CHILD, streams], env=env, capture_output=True, text=True
    )
    if out.returncode:
        lines = out.stderr.strip().splitlines() or ["(no output)"]
        errors = [line for line in lines if "Error" in line or "Exception" in line]
        return {"failed": (errors or lines)[-1][:300]}
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=40_000)
    parser.add_argument("--data", default="spec", help="'emulator' or 'spec'")
    parser.add_argument("--spec-width", default="wide", help="with --data spec: mixed or wide")
    parser.add_argument("--setting", action="append", default=[], help="VAR=value[,VAR=value]")
    parser.add_argument("--group", choices=sorted(GROUPS), help="one stream group only")
    args = parser.parse_args()
    settings = [dict(kv.split("=", 1) for kv in s.split(",") if kv) for s in args.setting] or [{}]
    groups = {args.group: GROUPS[args.group]} if args.group else GROUPS
    print("| users | setting | group | seconds | rows | peak MiB | extract | normalize | load |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|")
    for users in (args.users // 2, args.users):
        emulator = EmulatorProcess(
            seed=9, users=users, forms=10, schedulers=3, shifts=users * 4 // 5,
            api_key="bench", minute_limit=10_000_000, day_limit=100_000_000, time_clocks=2,
            time_activities=users // 2, activity_days=30, form_submissions=50, jobs=500,
            time_off_requests=1000, task_boards=3, tasks=2000, data=args.data,
            spec_width=args.spec_width,
        )  # fmt: skip
        with emulator as server:
            for extra in settings:
                named = ", ".join(f"`{k}={v}`" for k, v in extra.items()) or "defaults"
                for group, streams in groups.items():
                    r = run_group(server.url, streams, extra)
                    if "failed" in r:
                        print(f"| {users:,} | {named} | {group} | failed: {r['failed']} |||||")
                        continue
                    peaks: dict[str, float] = r["peaks"]  # type: ignore[assignment]
                    rows = sum(r["rows"].values())  # type: ignore[attr-defined]
                    print(
                        f"| {users:,} | {named} | {group} | {float(r['seconds']):.1f} "  # type: ignore[arg-type]
                        f"| {rows:,} | {max(peaks.values()):,.0f} | {peaks['extract']:,.0f} "
                        f"| {peaks.get('normalize', 0):,.0f} | {peaks['load']:,.0f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
