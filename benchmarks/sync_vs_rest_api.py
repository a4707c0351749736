"""Benchmark: the tool a user would pick instead — a plain dlt ``rest_api`` configuration.

    .venv/bin/python -m benchmarks.sync_vs_rest_api [--users 40000] [--shifts 80000]

Both load the same emulator account (its own process, no latency, no rate limit) into fresh
DuckDB files in one run: the reference is ``rest_api_source`` with the same endpoints, an
``offset`` paginator at each endpoint's maximum page size (no total, stop at an empty page, as
the provider's answers allow), shifts resolved per scheduler over the same window, and dlt's
default file format; against it ``run_sync`` of users, forms, schedulers and shifts. Requests are
counted at the emulator.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import dlt

from sources.configuration import resolve

from ._emulator import EmulatorProcess

STREAMS = ["users", "forms", "schedulers", "shifts"]


def rest_api_config(url: str, key: str) -> dict[str, Any]:
    """The same endpoints as a plain ``rest_api`` source configuration."""
    from sources.connecteam.registry import STREAMS
    from sources.connecteam.windows import shift_window

    shifts = STREAMS["shifts"].window
    assert shifts is not None

    window = shift_window(time.time(), shifts.days_back, shifts.days_ahead)

    def offset(limit: int) -> dict[str, Any]:
        return {"type": "offset", "limit": limit, "total_path": None, "stop_after_empty_page": True}

    return {
        "client": {
            "base_url": url + "/",
            "auth": {"type": "api_key", "name": "X-API-KEY", "api_key": key, "location": "header"},
        },
        "resource_defaults": {"write_disposition": "merge"},
        "resources": [
            {"name": "users", "primary_key": "userId",
             "endpoint": {"path": "users/v1/users", "params": {"userStatus": "all"},
                          "data_selector": "data.users", "paginator": offset(500)}},
            {"name": "forms", "primary_key": "formId",
             "endpoint": {"path": "forms/v1/forms", "data_selector": "data.forms",
                          "paginator": offset(300)}},
            {"name": "schedulers", "primary_key": "schedulerId",
             "endpoint": {"path": "scheduler/v1/schedulers", "data_selector": "data.schedulers",
                          "paginator": "single_page"}},
            {"name": "shifts", "primary_key": "id",
             "endpoint": {
                 "path": "scheduler/v1/schedulers/{scheduler_id}/shifts",
                 "params": {
                     "scheduler_id": {"type": "resolve", "resource": "schedulers",
                                      "field": "schedulerId"},
                     "startTime": window.start, "endTime": window.end, "sort": "created_at",
                 },
                 "data_selector": "data.shifts", "paginator": offset(500)}},
        ],
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--users", type=int, default=40_000)
    parser.add_argument("--shifts", type=int, default=80_000)
    parser.add_argument("--schedulers", type=int, default=4)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="wfm-restapi-"))
    os.environ["RUNTIME__DLTHUB_TELEMETRY"] = "false"
    emulator = EmulatorProcess(
        seed=4, users=args.users, forms=10, schedulers=args.schedulers, shifts=args.shifts,
        api_key="bench", minute_limit=10_000_000, day_limit=100_000_000,
    )  # fmt: skip
    results = {}
    with emulator as server:
        from dlt.sources.rest_api import rest_api_source

        server.control("stats/reset")
        started = time.perf_counter()
        pipeline = dlt.pipeline(
            "rest_api_reference",
            destination=dlt.destinations.duckdb(str(workdir / "rest_api.duckdb")),
            dataset_name="connecteam",
            pipelines_dir=str(workdir / "pipelines"),
        )
        info = pipeline.run(rest_api_source(cast(Any, rest_api_config(server.url, "bench"))))
        info.raise_on_failed_jobs()
        counts = pipeline.last_trace.last_normalize_info.row_counts  # type: ignore[union-attr]
        rows = sum(n for t, n in counts.items() if not t.startswith("_dlt"))
        results["dlt rest_api (reference)"] = (
            server.stats()["total"],
            rows,
            time.perf_counter() - started,
        )

        os.environ.update(
            SOURCES__CONNECTEAM__BASE_URL=server.url,
            SOURCES__CONNECTEAM__API_KEY="bench",
            DESTINATION__DUCKDB__CREDENTIALS=str(workdir / "ours" / "warehouse.duckdb"),
        )
        from pipelines import run_sync

        server.control("stats/reset")
        started = time.perf_counter()
        summary = run_sync(STREAMS, project=resolve())
        results["wfm-sync run_sync"] = (
            server.stats()["total"],
            sum(summary.rows.values()),
            time.perf_counter() - started,
        )
    print(
        f"\n## Against a plain dlt rest_api configuration ({time.strftime('%Y-%m-%d')}, "
        f"{os.cpu_count()} cores; {args.users:,} users, 10 forms, {args.schedulers} schedulers, "
        f"{args.shifts:,} shift rows)\n"
    )
    print("| run | requests | rows written (rest_api: with child tables) | seconds |")
    print("|---|---:|---:|---:|")
    for name, (requests, rows, seconds) in results.items():
        print(f"| {name} | {requests} | {rows:,} | {seconds:.1f} |")
    (ref_req, _, ref_s), (our_req, _, our_s) = results.values()
    print(
        f"\nfewer requests: {our_req} vs {ref_req} ({'met' if our_req < ref_req else 'MISSED'}); "
        f"speed-up {ref_s / our_s:.1f}x (target >= 3: {'met' if ref_s / our_s >= 3 else 'MISSED'})"
    )
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
