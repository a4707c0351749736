"""Benchmark: the fixed cost of a sync, on a small account where little else costs anything.

    .venv/bin/python -m benchmarks.sync_small [--runs 4] [--users 30] [--shifts 100]

The emulator runs as its own process (:mod:`benchmarks._emulator`) with ``--users`` users and
``--shifts`` shift rows. Each variant first syncs every stream once into a warehouse of its own
(not counted), then ``--runs`` more times (a quiet night: nothing changed), in this process
through :func:`pipelines.run_sync`, the two variants taking turns (reference first).

Reference: every query a resource asks of the warehouse opens an SQL client of its own (dlt's
configuration resolved and a connection opened each time), as before
:func:`sources.connecteam.loaded.one_sql_client` existed (replaced here by a block that does
nothing). Against it, the shipped code: one client for the whole extract. Prints each run's
wall and CPU seconds (this process, every thread), then the medians and their ratios.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from benchmarks._emulator import EmulatorProcess
from pipelines import run_sync
from sources.configuration import resolve

API_KEY = "bench-key"


@contextlib.contextmanager
def each_query_its_own_client(pipeline: Any) -> Iterator[None]:
    """The reference: :func:`~sources.connecteam.loaded.one_sql_client` doing nothing."""
    yield


def sync_once(warehouse: Path, reference: bool) -> tuple[float, float]:
    """One :func:`run_sync` of every stream into ``warehouse``; ``(wall, cpu)`` seconds."""
    os.environ["DESTINATION__DUCKDB__CREDENTIALS"] = str(warehouse)
    patch = (
        mock.patch("pipelines.sync.one_sql_client", each_query_its_own_client)
        if reference
        else contextlib.nullcontext()
    )
    with patch:
        wall, cpu = time.perf_counter(), time.process_time()
        run_sync(project=resolve())
        return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--users", type=int, default=30)
    parser.add_argument("--shifts", type=int, default=100)
    options = parser.parse_args()
    variants = {"reference": True, "one client": False}
    walls: dict[str, list[float]] = {name: [] for name in variants}
    cpus: dict[str, list[float]] = {name: [] for name in variants}
    emulator = EmulatorProcess(
        users=options.users, shifts=options.shifts, api_key=API_KEY, minute_limit=100_000
    )
    with tempfile.TemporaryDirectory() as tmp, emulator:
        os.environ.update(
            SOURCES__CONNECTEAM__BASE_URL=emulator.url,
            SOURCES__CONNECTEAM__API_KEY=API_KEY,
            WEBHOOKS__INBOX_URL=f"sqlite:///{Path(tmp) / 'inbox.sqlite3'}",
            RUNTIME__DLTHUB_TELEMETRY="false",
        )
        warehouses = {name: Path(tmp) / name / "warehouse.duckdb" for name in variants}
        for name, reference in variants.items():
            sync_once(warehouses[name], reference)  # the first sync loads everything: not counted
        for run in range(options.runs):
            for name, reference in variants.items():
                wall, cpu = sync_once(warehouses[name], reference)
                walls[name].append(wall)
                cpus[name].append(cpu)
                print(f"run {run + 1} {name:>10}: {wall:6.2f} s wall, {cpu:6.2f} s CPU")
    medians = {
        name: (statistics.median(walls[name]), statistics.median(cpus[name])) for name in variants
    }
    for name, (wall, cpu) in medians.items():
        print(f"median {name:>10}: {wall:6.2f} s wall, {cpu:6.2f} s CPU")
    (ref_wall, ref_cpu), (new_wall, new_cpu) = medians["reference"], medians["one client"]
    print(
        f"ratio one client / reference: wall {new_wall / ref_wall:.2f}, CPU {new_cpu / ref_cpu:.2f}"
    )


if __name__ == "__main__":
    main()
