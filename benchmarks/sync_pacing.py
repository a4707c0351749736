"""Benchmark: a sync that needs more than a minute of rate-limit budget, paced by the client.

    .venv/bin/python -m benchmarks.sync_pacing [--users 150000] [--shifts 200000]
        [--latency-ms 100] [--budget 600] [--max-in-flight 4] [--paging-total]

The emulator (``wfm-sync emulator --latency-ms``) answers every request after ``--latency-ms``
milliseconds and allows ``--budget`` requests a minute (fixed windows, as the provider's
``x-ratelimit-minute-*`` headers announce). One full sync of users, forms, schedulers and shifts
runs in-process with ``SOURCES__CONNECTEAM__MAX_IN_FLIGHT=--max-in-flight`` (1: one request at a
time). Reported: requests, 429 answers received (target 0), wall time, and wall time divided by
the time the budget itself imposes (``requests / budget`` minutes; target <= 1.10). The reference
is that budget time. A slow provider (``--latency-ms 300 --budget 200``: one request at a time
cannot keep the budget's pace) shows the concurrency within the budget.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from sources.configuration import resolve

from ._emulator import EmulatorProcess

STREAMS = ["users", "forms", "schedulers", "shifts"]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=150_000)
    parser.add_argument("--shifts", type=int, default=200_000)
    parser.add_argument("--schedulers", type=int, default=4)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--budget", type=int, default=600)
    parser.add_argument("--max-in-flight", type=int, default=4)
    parser.add_argument("--paging-total", action="store_true", help="answers carry paging.total")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="wfm-pacing-bench-"))
    os.environ["RUNTIME__DLTHUB_TELEMETRY"] = "false"
    print(f"generating {args.users:,} users and {args.shifts:,} shift rows ...", flush=True)
    emulator = EmulatorProcess(
        seed=5, users=args.users, forms=10, schedulers=args.schedulers, shifts=args.shifts,
        api_key="bench", minute_limit=args.budget, day_limit=1_000_000,
        latency_ms=args.latency_ms, paging_total=args.paging_total,
    )  # fmt: skip
    with emulator as server:
        os.environ.update(
            SOURCES__CONNECTEAM__BASE_URL=server.url,
            SOURCES__CONNECTEAM__API_KEY="bench",
            DESTINATION__DUCKDB__CREDENTIALS=str(workdir / "w.duckdb"),
            SOURCES__CONNECTEAM__MAX_IN_FLIGHT=str(args.max_in_flight),
        )
        from pipelines import run_sync

        server.control("stats/reset")
        started = time.perf_counter()
        summary = run_sync(STREAMS, project=resolve())
        wall = time.perf_counter() - started
        stats = server.stats()
    requests = int(stats["total"])
    throttled = int(stats["statuses"].get("429", 0))
    budget_seconds = requests / args.budget * 60
    print(
        f"\n## Pacing ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores; latency "
        f"{args.latency_ms:.0f} ms per request, budget {args.budget} requests/minute; "
        f"{args.users:,} users, {args.shifts:,} shift rows in {args.schedulers} schedulers; "
        f"max in flight {args.max_in_flight}; paging.total "
        f"{'sent' if args.paging_total else 'not sent'})\n"
    )
    print("| requests | 429 answers | wall s | budget time s (requests / budget) | ratio | "
          "waited for resets s (all threads) | most in flight at the emulator |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {requests} | {throttled} | {wall:.1f} | {budget_seconds:.1f} | "
          f"{wall / budget_seconds:.2f} | {summary.paced_seconds:.1f} | "
          f"{stats['peak_in_flight']} |")  # fmt: skip
    print(f"\ntargets: 0 answers 429 ({'met' if throttled == 0 else 'MISSED'}); ratio <= 1.10 "
          f"({'met' if wall / budget_seconds <= 1.10 else 'MISSED'})")  # fmt: skip
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
