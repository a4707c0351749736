"""Benchmark: dbt runs of two configurations taking turns in one target folder.

    .venv/bin/python -m benchmarks.dbt_parse_turns [--turns 3] [--runs 2]

Two DuckDB warehouses of different names (so the dbt variable ``warehouse`` differs, as it does
between DuckDB and PostgreSQL, or between accounts) take turns ``--turns`` times each: ``dbt
parse`` through :func:`pipelines.dbt_runner.run_dbt`, in one target folder (a new one per
sequence), in this process. Reference: dbt's one parse cache per target folder
(:func:`pipelines.dbt_parse_cache.use_parse_cache` replaced by nothing, as before it existed);
against it, the shipped code, which keeps each configuration's cache aside. The two alternate
``--runs`` times (reference first). Prints each sequence's seconds and how many of its parses
read the whole project (dbt's ``perf_info.json``: ``parsed_path_count`` above 0), then the
medians and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from unittest import mock

import duckdb

from pipelines import dbt_runner
from pipelines.dbt_runner import run_dbt, target_dir
from sources.configuration import resolve

NAMES = ("warehouse.duckdb", "other.duckdb")


def sequence(folder: Path, turns: int) -> tuple[float, int]:
    """``turns`` rounds of ``dbt parse`` on each of :data:`NAMES` in ``folder``; returns the
    seconds all took and how many parsed the whole project."""
    os.environ["WFM_SYNC_DBT_TARGET_DIR"] = str(folder / "target")
    full, start = 0, time.perf_counter()
    for _ in range(turns):
        for name in NAMES:
            warehouse = folder / name
            duckdb.connect(str(warehouse)).close()
            os.environ["DESTINATION__DUCKDB__CREDENTIALS"] = str(warehouse)
            project = resolve()
            assert run_dbt(["parse"], warehouse, project=project).success
            info = json.loads((target_dir(project.settings) / "perf_info.json").read_text())
            full += info["parsed_path_count"] > 0
    return time.perf_counter() - start, full


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--runs", type=int, default=2)
    options = parser.parse_args()
    os.environ.setdefault("WFM_SYNC_NOW", "1795132800")
    times: dict[str, list[float]] = {"reference": [], "kept": []}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(options.runs):
            for mode in times:
                folder = Path(tmp) / f"{mode}-{run}"
                folder.mkdir()
                if mode == "reference":
                    with mock.patch.object(dbt_runner, "use_parse_cache", lambda *_: None):
                        seconds, full = sequence(folder, options.turns)
                else:
                    seconds, full = sequence(folder, options.turns)
                times[mode].append(seconds)
                parses = 2 * options.turns
                print(f"{mode:<9} run {run + 1}: {seconds:6.1f} s, {full}/{parses} whole parses")
    medians = {mode: statistics.median(values) for mode, values in times.items()}
    print(f"medians: reference {medians['reference']:.1f} s, kept {medians['kept']:.1f} s, "
          f"ratio {medians['kept'] / medians['reference']:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
