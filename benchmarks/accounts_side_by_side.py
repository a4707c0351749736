"""Benchmark: two accounts synced side by side, each within its own rate-limit budget.

    .venv/bin/python -m benchmarks.accounts_side_by_side [--budget 100] [--users 3000]
        [--shifts 30000] [--latency-ms 50] [--rounds 1]

Two emulated accounts of the demo's size (``wfm-sync emulator`` processes, seeds 42 and 43, 20
forms, 4 schedulers), each allowing ``--budget`` requests a minute and answering after
``--latency-ms``. Three runs of the installed ``wfm-sync sync --steps sync`` (every stream), each
into a fresh DuckDB file against freshly started emulators:

* reference ``one account alone``: ``--accounts north``;
* ``side by side``: ``--accounts north,south`` (one process, a thread per account);
* ``one after the other``: ``--accounts north``, then ``--accounts south``.

Each run starts half a second into a rate-limit window (the emulator's windows are the clock's
minutes), so none is favoured by a budget that renews soon after it starts. Reported: wall time
of each and the ratios to the reference (goal for side by side: <= 1.2x)
and to one after the other, with the requests each emulator answered and its 429s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ._commands import timed
from ._emulator import EmulatorProcess

ACCOUNTS = {"north": 42, "south": 43}
"""The two accounts and their emulators' seeds."""


def emulators(args: argparse.Namespace) -> dict[str, EmulatorProcess]:
    """An emulator per account, not yet started."""
    size = {
        "users": args.users, "forms": 20, "schedulers": 4, "shifts": args.shifts,
        "time_activities": max(400, args.shifts * 29 // 100), "minute_limit": args.budget,
        "day_limit": 1_000_000, "latency_ms": args.latency_ms,
    }  # fmt: skip
    return {
        name: EmulatorProcess(seed=seed, api_key=f"key-{name}", **size)
        for name, seed in ACCOUNTS.items()
    }


def environment(servers: dict[str, EmulatorProcess], folder: Path) -> dict[str, str]:
    """``wfm-sync``'s environment: both accounts, a warehouse in ``folder``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SOURCES__", "DESTINATION__", "WFM_SYNC_", "WEBHOOKS__"))
    }
    env.update(
        DESTINATION__DUCKDB__CREDENTIALS=str(folder / "warehouse.duckdb"),
        WEBHOOKS__INBOX_URL=f"sqlite:///{folder / 'inbox.sqlite3'}",
        RUNTIME__DLTHUB_TELEMETRY="false",
    )
    for name, server in servers.items():
        prefix = f"SOURCES__CONNECTEAM__ACCOUNTS__{name.upper()}__"
        env[prefix + "BASE_URL"] = server.url
        env[prefix + "API_KEY"] = f"key-{name}"
    return env


def measure(args: argparse.Namespace, run: Callable[[dict[str, str]], float]) -> tuple[float, str]:
    """``run(env)`` against fresh emulators into a fresh warehouse: its seconds, and what each
    emulator answered."""
    servers = emulators(args)
    with tempfile.TemporaryDirectory(prefix="wfm-accounts-bench-") as folder:
        for server in servers.values():
            server.__enter__()
        try:
            time.sleep(60 - time.time() % 60 + 0.5)  # every run starts as a minute window does
            seconds = run(environment(servers, Path(folder)))
            answered = ", ".join(
                f"{name} {stats['total']} requests, {stats.get('statuses', {}).get('429', 0)} 429s"
                for name, stats in ((n, s.stats()) for n, s in servers.items())
            )
        finally:
            for server in servers.values():
                server.__exit__(None, None, None)
    return seconds, answered


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--users", type=int, default=3000)
    parser.add_argument("--shifts", type=int, default=30000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    sync = ("sync", "--steps", "sync", "--accounts")
    variants: dict[str, Callable[[dict[str, str]], float]] = {
        "one account alone (reference)": lambda env: timed(env, *sync, "north"),
        "side by side": lambda env: timed(env, *sync, "north,south"),
        "one after the other": lambda env: timed(env, *sync, "north") + timed(env, *sync, "south"),
    }
    results: dict[str, list[float]] = {name: [] for name in variants}
    for round_number in range(args.rounds):
        for name, run in variants.items():
            seconds, answered = measure(args, run)
            results[name].append(seconds)
            print(f"round {round_number + 1}: {name}: {seconds:.1f} s ({answered})", flush=True)
    reference = statistics.median(results["one account alone (reference)"])
    after = statistics.median(results["one after the other"])
    print(
        f"\n{args.users:,} users, {args.shifts:,} shift rows per account; budget "
        f"{args.budget}/minute each; latency {args.latency_ms:.0f} ms; {args.rounds} round(s)\n"
    )
    print("| run | wall (median) | vs one alone | vs one after the other |")
    print("|---|---:|---:|---:|")
    for name, values in results.items():
        median = statistics.median(values)
        print(f"| {name} | {median:.1f} s | {median / reference:.2f}x | {median / after:.2f}x |")


if __name__ == "__main__":
    main()
