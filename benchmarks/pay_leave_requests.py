"""Benchmark: requests the pay and leave streams spend, next to the provider's minimum.

    .venv/bin/python -m benchmarks.pay_leave_requests [--users 5000] [--schedulers 4]

Against the emulator (counting at the server), a full sync of ``pay_rates``,
``pay_rule_policies``, ``time_off_policy_types``, ``time_off_balances`` and
``scheduler_unavailabilities`` into a fresh DuckDB file, then a nightly with nothing changed. The
reference is the minimum of the provider's paging rule: ``⌊N/L⌋+1`` pages per list (per policy
type for balances, per scheduler for unavailabilities), one request per unpaged listing. Also
shown: rows the nightly loads (only the day's balance snapshot should reload) and wall time.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import cast

from emulator import EmulatorConfig, EmulatorServer, ServerOptions
from sources.configuration import resolve
from sources.connecteam.registry import STREAMS

NEW = ("scheduler_unavailabilities", "pay_rates", "pay_rule_policies", "time_off_policy_types",
       "time_off_balances")  # fmt: skip
PATHS = {"pay_rates": "/pay-rates/", "pay_rule_policies": "/pay-rule-policies",
         "time_off_policy_types": "/policy-types", "time_off_balances": "/balances",
         "scheduler_unavailabilities": "/unavailabilities"}  # fmt: skip


def minimum(n: int, limit: int | None) -> int:
    """Requests the provider's paging rule allows for one listing of ``n`` records."""
    return 1 if limit is None else n // limit + 1


def main() -> None:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=5000)
    parser.add_argument("--schedulers", type=int, default=4)
    args = parser.parse_args()

    from emulator.domains.pay_leave.data import pay_leave_of
    from emulator.operations_data import OperationsConfig
    from pipelines import build_pipeline, run_sync

    sizes = OperationsConfig(time_clocks=1, time_activities=0, form_submissions=0, jobs=8,
                             time_off_requests=0, task_boards=0, tasks=0,
                             unavailabilities=args.users // 2)  # fmt: skip
    config = EmulatorConfig(seed=7, users=args.users, forms=1, schedulers=args.schedulers,
                            shifts=0, operations=sizes)  # fmt: skip
    options = ServerOptions(api_key="bench", minute_limit=1_000_000, day_limit=10_000_000)
    with tempfile.TemporaryDirectory() as tmp, EmulatorServer(config, options) as server:
        os.environ.update(
            SOURCES__CONNECTEAM__BASE_URL=server.url, SOURCES__CONNECTEAM__API_KEY="bench",
            DESTINATION__DUCKDB__CREDENTIALS=str(Path(tmp) / "w.duckdb"),
        )  # fmt: skip
        pay_leave = pay_leave_of(server.state.dataset)
        pipeline = build_pipeline(project=resolve())
        server.control("stats/reset")
        started = time.perf_counter()
        full = run_sync(NEW, pipeline=pipeline, project=resolve())
        full_seconds = time.perf_counter() - started
        full_counts = cast(dict[str, int], server.stats()["requests"])
        server.control("stats/reset")
        started = time.perf_counter()
        nightly = run_sync(NEW, pipeline=pipeline, project=resolve())
        nightly_seconds = time.perf_counter() - started
        nightly_counts = cast(dict[str, int], server.stats()["requests"])

    sizes_by_parent = {
        "pay_rates": [len(pay_leave.pay_rates)],
        "pay_rule_policies": [len(pay_leave.pay_rule_policies)],
        "time_off_policy_types": [len(pay_leave.balances)],
        "time_off_balances": [len(rows) for rows in pay_leave.balances.values()],
        "scheduler_unavailabilities": [len(rows) for rows in pay_leave.unavailabilities.values()],
    }

    def spent(counts: dict[str, int], stream: str) -> int:
        return sum(n for path, n in counts.items()
                   if PATHS[stream] in path and not (stream == "time_off_policy_types"
                                                     and path.endswith("/balances")))  # fmt: skip

    print("| stream | N (per parent) | L | minimum | full sync | nightly | rows loaded nightly |")
    print("|---|---|---|---:|---:|---:|---:|")
    for stream in NEW:
        limit = STREAMS[stream].max_limit
        reference = sum(minimum(n, limit) for n in sizes_by_parent[stream])
        print(f"| `{stream}` | {', '.join(f'{n:,}' for n in sizes_by_parent[stream])} | "
              f"{limit or '-'} | {reference} | {spent(full_counts, stream)} | "
              f"{spent(nightly_counts, stream)} | {nightly.rows.get(stream, 0):,} |")  # fmt: skip
    print(
        f"\nfull sync {full_seconds:.1f} s ({sum(full.rows.values()):,} rows), "
        f"nightly {nightly_seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
