"""Benchmark: how long a one-shot sync takes before its first request, on a fresh Prefect home.

    .venv/bin/python -m benchmarks.first_request [--runs 3] [--busy] [--before DIR]

Each run starts a new process with a brand-new ``PREFECT_HOME`` and ``DLT_DATA_DIR`` and no
``PREFECT_API_URL``, and syncs the ``users`` stream from an emulator (its own process); the time
from the process start to the emulator's first answered request is read by polling the
emulator's request counter every 20 ms. ``--busy`` keeps both cores busy with two spinning
processes meanwhile.

Reference, in the same run: the same job called through Prefect's engine
(``nightly_sync.prefect_flow(...)``, as the command ran it before it called the job directly
without an API), which first starts Prefect's temporary API server and migrates its database.
``--before DIR`` adds the command run on the code checked out in ``DIR`` (``PYTHONPATH``), e.g. a
worktree of an earlier commit.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._emulator import EmulatorProcess

VARIANTS = {
    "Prefect engine, temporary server (reference)": [
        sys.executable, "-c",
        "from flows.nightly import nightly_sync; "
        "nightly_sync.prefect_flow(streams=('users',), streams_label='users', steps=('sync',))",
    ],
    "wfm-sync sync (no API: direct)": [
        str(Path(sys.executable).with_name("wfm-sync")), "sync", "--streams", "users",
        "--steps", "sync",
    ],
}  # fmt: skip


def first_request(
    command: list[str], emulator: EmulatorProcess, workdir: Path, code: str | None = None
) -> tuple[float | None, float, int]:
    """Run ``command`` fresh (on the code in folder ``code`` when given); return (seconds to the
    first request or None, seconds in all, exit status)."""
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env.update(
        PREFECT_HOME=str(workdir / "prefect-home"),
        DLT_DATA_DIR=str(workdir / "dlt"),
        SOURCES__CONNECTEAM__BASE_URL=emulator.url,
        SOURCES__CONNECTEAM__API_KEY="emulator-key",
        DESTINATION__DUCKDB__CREDENTIALS=str(workdir / "warehouse.duckdb"),
        RUNTIME__DLTHUB_TELEMETRY="false",
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
    )
    if code is not None:
        env["PYTHONPATH"] = code
    emulator.control("stats/reset")
    started = time.monotonic()
    process = subprocess.Popen(
        command, env=env, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    seen: float | None = None
    while process.poll() is None:
        if seen is None and emulator.stats()["total"] > 0:
            seen = time.monotonic() - started
        time.sleep(0.02)
    if seen is None and emulator.stats()["total"] > 0:
        seen = time.monotonic() - started
    return seen, time.monotonic() - started, process.returncode


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--busy", action="store_true", help="two CPU-burning processes beside")
    parser.add_argument("--before", help="also run the command on the code in this folder")
    args = parser.parse_args()
    variants: dict[str, tuple[list[str], str | None]] = {
        name: (command, None) for name, command in VARIANTS.items()
    }
    if args.before:
        variants[f"wfm-sync sync, code in {args.before}"] = (
            [sys.executable, "-m", "flows.cli", *VARIANTS["wfm-sync sync (no API: direct)"][1:]],
            str(Path(args.before).resolve()),
        )
    workdir = Path(tempfile.mkdtemp(prefix="wfm-first-request-"))
    burners = (
        [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
        if args.busy
        else []
    )
    results: dict[str, list[tuple[float | None, float, int]]] = {name: [] for name in variants}
    try:
        with EmulatorProcess(users=200, shifts=100, minute_limit=10_000) as emulator:
            for run in range(args.runs):
                for name, (command, code) in variants.items():
                    outcome = first_request(command, emulator, workdir / f"{run}", code)
                    results[name].append(outcome)
                    print(f"run {run + 1} {name}: {outcome}", flush=True)
    finally:
        for burner in burners:
            burner.kill()
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nfresh PREFECT_HOME, {'two busy cores' if args.busy else 'idle machine'}, "
          f"{args.runs} runs each (median; failed runs counted)")  # fmt: skip
    print("| variant | to first request s | whole run s | failed runs |")
    print("|---|---:|---:|---:|")
    for name, outcomes in results.items():
        firsts = [f for f, _, code in outcomes if f is not None and code == 0]
        totals = [t for _, t, code in outcomes if code == 0]
        failed = sum(1 for *_, code in outcomes if code != 0)
        first = f"{statistics.median(firsts):.2f}" if firsts else "-"
        total = f"{statistics.median(totals):.2f}" if totals else "-"
        print(f"| {name} | {first} | {total} | {failed} of {len(outcomes)} |")


if __name__ == "__main__":
    main()
