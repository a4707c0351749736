"""Benchmark: what writing the marts as Parquet adds to a publish, next to the DuckDB snapshot.

    make demo   # once: fills data/demo/warehouse.duckdb
    .venv/bin/python -m benchmarks.publish_parquet [--warehouse data/demo/warehouse.duckdb]

Copies the warehouse to a temporary folder, then publishes it three times
(``pipelines.publish.publish_snapshot``: the snapshot, then every mart as Parquet) and times
the Parquet part alone (``pipelines.parquet.write_marts``) three times. The reference, in the same
run, is the snapshot part: the publish minus the Parquet part. Also shown: the marts' rows and
the size of the Parquet folder next to the snapshot file.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from sources.configuration import resolve


def main() -> None:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--warehouse", default="data/demo/warehouse.duckdb")
    args = parser.parse_args()
    source = Path(args.warehouse)
    if not source.exists():
        raise SystemExit(f"no warehouse at {source}: run `make demo` first")

    import duckdb

    from pipelines.parquet import write_marts
    from pipelines.publish import publish_snapshot

    with tempfile.TemporaryDirectory() as tmp:
        warehouse = Path(tmp) / "warehouse.duckdb"
        shutil.copy(source, warehouse)
        os.environ["DESTINATION__DUCKDB__CREDENTIALS"] = str(warehouse)
        publishes, parts = [], []
        for _ in range(3):
            started = time.monotonic()
            summary = publish_snapshot(warehouse, project=resolve())
            publishes.append(time.monotonic() - started)
        for _ in range(3):
            with duckdb.connect(str(warehouse)) as con:
                (catalog,) = con.execute("select current_database()").fetchone() or ("",)
                started = time.monotonic()
                write_marts(con, catalog, Path(summary.parquet_dir), time.time())
                parts.append(time.monotonic() - started)
        folder = Path(summary.parquet_dir).resolve()
        parquet_mb = sum(p.stat().st_size for p in folder.iterdir()) / 2**20
        snapshot_mb = Path(summary.snapshot).stat().st_size / 2**20
    publish, parquet = statistics.median(publishes), statistics.median(parts)
    rows = sum(summary.parquet_tables.values())
    print(f"\n{source}: {len(summary.parquet_tables)} marts, {rows:,} rows; medians of 3\n")
    print("| part of a publish | seconds | size MiB |")
    print("|---|---:|---:|")
    print(f"| reference: the DuckDB snapshot ({len(summary.tables)} tables) | "
          f"{publish - parquet:.2f} | {snapshot_mb:.1f} |")  # fmt: skip
    print(f"| every mart as Parquet (zstd) | {parquet:.2f} | {parquet_mb:.1f} |")
    print(f"| the whole publish | {publish:.2f} | |")


if __name__ == "__main__":
    main()
