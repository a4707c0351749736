"""Benchmark: requests a full and a nightly incremental sync spend, next to the provider's minimum.

    .venv/bin/python -m benchmarks.sync_requests [--users 20000] [--shifts 40000] [--schedulers 4]

For each stream of the foundation (users, forms, schedulers, shifts) this runs, against the
emulator (counting at the server), a full sync into a fresh DuckDB file, changes 1% of the users
and 1% of the shift rows, and runs the nightly incremental sync. The reference is the minimum the
provider's paging rule allows for a full listing: ``⌊N/L⌋+1`` pages per list with the endpoint
maximum ``L`` (``⌈N/L⌉``, at least 1, when answers carry ``paging.total``). The incremental
target is 5% of the full sync plus one request per scheduler window. Both provider behaviours are
measured: answers without ``paging.total`` (the common case) and with it.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import tempfile
import time
from pathlib import Path

from emulator import EmulatorConfig, EmulatorServer, ServerOptions
from sources.connecteam.settings import FORMS, SHIFTS, USERS

STREAMS = ["users", "forms", "schedulers", "shifts"]
PATHS = {
    "users": USERS.path,
    "forms": FORMS.path,
    "schedulers": "/scheduler/v1/schedulers",
    "shifts": SHIFTS.path,
}


def minimum(n: int, limit: int | None, with_total: bool) -> int:
    """Fewest requests the provider's rules allow to list ``n`` records."""
    if limit is None:
        return 1
    return max(1, math.ceil(n / limit)) if with_total else n // limit + 1


def measure(args: argparse.Namespace, with_total: bool, workdir: Path) -> list[tuple]:
    from pipelines import build_pipeline, run_sync

    config = EmulatorConfig(seed=3, users=args.users, forms=args.forms,
                            schedulers=args.schedulers, shifts=args.shifts)  # fmt: skip
    options = ServerOptions(api_key="bench", minute_limit=1_000_000, day_limit=10_000_000,
                            paging_total=with_total)  # fmt: skip
    with EmulatorServer(config, options) as server:
        os.environ.update(
            SOURCES__CONNECTEAM__BASE_URL=server.url,
            SOURCES__CONNECTEAM__API_KEY="bench",
            DESTINATION__DUCKDB__CREDENTIALS=str(workdir / f"total-{with_total}" / "w.duckdb"),
        )
        data = server.state.dataset
        sizes = {"users": len(data.users), "forms": len(data.forms),
                 "schedulers": len(data.schedulers)}  # fmt: skip
        shift_sizes = [len(rows) for rows in data.shifts.values()]
        pipeline = build_pipeline()
        full = run_sync(STREAMS, pipeline=pipeline)
        server.control(
            "mutate",
            {"users": max(1, args.users // 100), "shifts": max(1, args.shifts // 100)},
        )
        nightly = run_sync(STREAMS, pipeline=pipeline)
    rows = []
    for stream in STREAMS:
        path = PATHS[stream]
        if stream == "shifts":
            reference = sum(minimum(n, SHIFTS.max_limit, with_total) for n in shift_sizes)
            n_text = "+".join(str(n) for n in shift_sizes)
            limit = SHIFTS.max_limit
        else:
            limit = {"users": USERS.max_limit, "forms": FORMS.max_limit}.get(stream)
            reference = minimum(sizes[stream], limit, with_total)
            n_text = str(sizes[stream])
        rows.append((stream, n_text, limit or "-", reference, full.requests.get(path, 0),
                     nightly.requests.get(path, 0), nightly.rows.get(stream, 0)))  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--forms", type=int, default=10)
    parser.add_argument("--schedulers", type=int, default=4)
    parser.add_argument("--shifts", type=int, default=40_000)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="wfm-req-bench-"))
    os.environ["RUNTIME__DLTHUB_TELEMETRY"] = "false"
    print(
        f"\n## Request efficiency ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores; "
        f"{args.users:,} users, {args.forms} forms, {args.schedulers} schedulers, "
        f"{args.shifts:,} shift rows; nightly = after 1% of users and shift rows changed)"
    )
    for with_total in (False, True):
        rows = measure(args, with_total, workdir)
        full = sum(r[4] for r in rows)
        nightly = sum(r[5] for r in rows)
        target = 0.05 * full + args.schedulers
        label = "with paging.total" if with_total else "without paging.total"
        print(f"\n### Provider answers {label}\n")
        print("| stream | N | L | minimum (full) | full sync | nightly | rows loaded nightly |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for stream, n, limit, reference, f, nt, loaded in rows:
            print(f"| {stream} | {n} | {limit} | {reference} | {f} | {nt} | {loaded} |")
        at_minimum = all(r[3] == r[4] for r in rows)
        print(f"\nfull sync: {full} requests, {'equal to' if at_minimum else 'ABOVE'} the minimum "
              f"({sum(r[3] for r in rows)}); nightly: {nightly} requests, target <= 5% of full + "
              f"{args.schedulers} scheduler windows = {target:.1f}: "
              f"{'met' if nightly <= target else 'MISSED'}")  # fmt: skip
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
