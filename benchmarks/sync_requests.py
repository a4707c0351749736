"""Benchmark: requests a full and a nightly incremental sync spend, next to the provider's minimum.

    .venv/bin/python -m benchmarks.sync_requests [--users 20000] [--shifts 40000] [--schedulers 4]

For each stream of the foundation (users, forms, schedulers, shifts) this runs, against the
emulator (counting at the server), a full sync into a fresh DuckDB file, changes 1% of the users
and 1% of the shift rows, and runs the nightly incremental sync. The reference is the minimum the
provider's paging rule allows for a full listing: ``⌊N/L⌋+1`` pages per list with the endpoint
maximum ``L`` (``⌈N/L⌉``, at least 1, when answers carry ``paging.total``). The incremental
target is 5% of the full sync plus one request per scheduler window. Both provider behaviours are
measured: answers without ``paging.total`` (the common case) and with it.

A third table covers the operations streams (time clocks, time activities and timesheets per
clock and window, form submissions per form, jobs, time off per window, tasks per board, custom
field definitions): a full sync and a nightly one with nothing changed, next to the minimum.
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
from sources.configuration import resolve
from sources.connecteam.registry import STREAMS as REGISTRY

from .streams import FOUNDATION
from .streams import OPERATIONS as OPERATION_STREAMS

USERS, FORMS, SHIFTS = REGISTRY["users"], REGISTRY["forms"], REGISTRY["shifts"]

STREAMS = list(FOUNDATION)
PATHS = {name: REGISTRY[name].path for name in STREAMS}


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
        pipeline = build_pipeline(project=resolve())
        full = run_sync(STREAMS, pipeline=pipeline, project=resolve())
        server.control(
            "mutate",
            {"users": max(1, args.users // 100), "shifts": max(1, args.shifts // 100)},
        )
        nightly = run_sync(STREAMS, pipeline=pipeline, project=resolve())
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


OPERATIONS = [*OPERATION_STREAMS, "forms"]  # with form_submissions' parent


def measure_operations(args: argparse.Namespace, workdir: Path) -> list[tuple]:
    """Full and nightly (nothing changed) syncs of the operations streams, next to the minimum:
    per parent and per window ``⌊N/L⌋+1`` pages, one request per window when not paged."""
    from datetime import UTC, datetime, timedelta

    from emulator.operations_data import OperationsConfig
    from pipelines import build_pipeline, run_sync
    from sources.connecteam.windows import date_windows

    sizes = OperationsConfig(time_clocks=3, time_activities=6000, activity_days=60,
                             form_submissions=250, jobs=1200, time_off_requests=450,
                             task_boards=3, tasks=260, extra_custom_fields=600)  # fmt: skip
    config = EmulatorConfig(seed=4, users=args.users, forms=args.forms, schedulers=1, shifts=10,
                            operations=sizes)  # fmt: skip
    options = ServerOptions(api_key="bench", minute_limit=1_000_000, day_limit=10_000_000)
    with EmulatorServer(config, options) as server:
        os.environ.update(
            SOURCES__CONNECTEAM__BASE_URL=server.url,
            SOURCES__CONNECTEAM__API_KEY="bench",
            DESTINATION__DUCKDB__CREDENTIALS=str(workdir / "operations" / "w.duckdb"),
        )
        ops = server.state.dataset.operations
        pipeline = build_pipeline(project=resolve())
        full = run_sync(OPERATIONS, pipeline=pipeline, project=resolve())
        nightly = run_sync(OPERATIONS, pipeline=pipeline, project=resolve())
    today = datetime.now(UTC).date()
    clocks = len(ops.time_clocks)
    activity_windows = len(date_windows(today - timedelta(days=35), today + timedelta(days=1), 92))
    sheet_windows = len(date_windows(today - timedelta(days=35), today + timedelta(days=1), 45))
    off_first, off_last = today - timedelta(days=35), today + timedelta(days=180)
    off_reference = off_in_window = 0
    for lo, hi in date_windows(off_first, off_last, 365):
        n = sum(r["startDate"] <= hi.isoformat() and r["endDate"] >= lo.isoformat()
                for r in ops.time_off_requests)  # fmt: skip
        off_reference += minimum(n, REGISTRY["time_off_requests"].max_limit, False)
        off_in_window += n
    submissions = [len(v) for v in ops.form_submissions.values()]
    tasks = [len(v) for v in ops.tasks.values()]
    table = [
        ("time_clocks", str(clocks), "-", 1),
        ("time_activities", f"{clocks} clocks x {activity_windows} window",
         "-", clocks * activity_windows),
        ("timesheets", f"{clocks} clocks x {sheet_windows} window", "-",
         clocks * sheet_windows),
        ("form_submissions", "+".join(map(str, submissions)), 100,
         sum(minimum(n, 100, False) for n in submissions)),
        ("jobs", str(len(ops.jobs)), 500, minimum(len(ops.jobs), 500, False)),
        ("time_off_requests", f"{off_in_window} in 1 window", 100,
         off_reference),
        ("task_boards", str(len(ops.task_boards)), "-", 1),
        ("tasks", "+".join(map(str, tasks)), 100,
         sum(minimum(n, 100, False) for n in tasks)),
        ("user_custom_field_definitions",
         str(len(ops.custom_fields)), 500, minimum(len(ops.custom_fields), 500, False)),
    ]  # fmt: skip
    return [
        (name, n, limit, reference, full.requests.get(REGISTRY[name].path, 0),
         nightly.requests.get(REGISTRY[name].path, 0), nightly.rows.get(name, 0))
        for name, n, limit, reference in table
    ]  # fmt: skip


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
    rows = measure_operations(args, workdir)
    print("\n### Operations streams (answers without paging.total; nightly = nothing changed)\n")
    print("| stream | N | L | minimum (full) | full sync | nightly | rows loaded nightly |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for stream, n, limit, reference, f, nt, loaded in rows:
        print(f"| {stream} | {n} | {limit} | {reference} | {f} | {nt} | {loaded} |")
    at_minimum = all(r[3] == r[4] for r in rows)
    verdict = "equal to" if at_minimum else "ABOVE"
    print(f"\nfull sync: {sum(r[4] for r in rows)} requests, {verdict} the minimum "
          f"({sum(r[3] for r in rows)})")  # fmt: skip
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
