"""Benchmark: folding a backlog of webhook events from the inbox into DuckDB.

    .venv/bin/python -m benchmarks.webhooks_fold [--events 1000000]

Fills a fresh SQLite inbox with ``--events`` distinct provider-like events (every catalogued
type, not timed), then measures in the same run:

* reference ``raw copy``: the same inbox rows read with SQLAlchemy in 100,000-row batches, turned
  into Arrow and inserted into a DuckDB table directly (no dlt, no dedup, no state): the floor
  of moving these bytes on this machine;
* ``run_fold``: the fold job (dlt, Parquet, insert-only merge on ``event_key``, marking the inbox
  rows folded).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

import duckdb
import orjson
import pyarrow as pa


def fill(inbox_url: str, events: int) -> float:
    from emulator.webhooks import build_burst
    from sources.webhooks import Inbox, ReceivedEvent, read_envelope

    inbox = Inbox(inbox_url)
    size = 0
    for start in range(0, events, 100_000):
        n = min(100_000, events - start)
        bodies = build_burst(n, seed=start + 1)
        now = time.time()
        size += sum(len(b) for b, _, _ in bodies)
        inbox.insert_events(
            [ReceivedEvent(read_envelope(orjson.loads(b), b), b, now) for b, _, _ in bodies]
        )
    inbox.close()
    return size / events


def raw_copy(inbox_url: str, target: Path) -> float:
    from sources.webhooks import Inbox

    inbox = Inbox(inbox_url)
    started = time.perf_counter()
    with duckdb.connect(str(target)) as con:
        first = True
        for rows in inbox.unfolded_events(100_000):
            cols = list(zip(*rows, strict=True))
            batch = pa.table(
                {
                    "event_key": pa.array(cols[1], pa.string()),
                    "event_type": pa.array(cols[2], pa.string()),
                    "family": pa.array(cols[3], pa.string()),
                    "event_timestamp": pa.array(cols[5], pa.int64()),
                    "payload": pa.array(cols[10], pa.binary()).cast(pa.string()),
                }
            )
            con.register("batch", batch)
            if first:
                con.execute("create table events as select * from batch")
                first = False
            else:
                con.execute("insert into events select * from batch")
            con.unregister("batch")
    inbox.close()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=1_000_000)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="wfm-fold-bench-"))
    inbox_url = f"sqlite:///{workdir / 'inbox.sqlite3'}"
    os.environ["DESTINATION__DUCKDB__CREDENTIALS"] = str(workdir / "wh" / "warehouse.duckdb")
    print(f"filling the inbox with {args.events:,} events ...", flush=True)
    started = time.perf_counter()
    mean_size = fill(inbox_url, args.events)
    print(f"filled in {time.perf_counter() - started:.0f} s (mean body {mean_size:.0f} bytes)")

    reference = raw_copy(inbox_url, workdir / "raw.duckdb")
    from pipelines.fold import run_fold

    started = time.perf_counter()
    summary = run_fold(inbox_url)
    ours = time.perf_counter() - started
    with duckdb.connect(os.environ["DESTINATION__DUCKDB__CREDENTIALS"], read_only=True) as con:
        loaded, distinct = con.sql(
            "select count(*), count(distinct event_key) from webhooks.events"
        ).fetchall()[0]

    print(
        f"\n## Webhook fold ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {args.events:,} events of ~{mean_size:.0f} bytes)\n"
    )
    print("| job | seconds | events/s |")
    print("|---|---:|---:|")
    print(
        f"| raw copy (reference: SQLite -> Arrow -> DuckDB, no dlt) | {reference:.1f} | "
        f"{args.events / reference:,.0f} |"
    )
    print(
        f"| run_fold (dlt, Parquet, insert-only merge, mark folded) | {ours:.1f} | "
        f"{args.events / ours:,.0f} |"
    )
    print(
        f"\nfold / raw copy: {ours / reference:.2f}x; target: {args.events:,} events in under "
        f"60 s ({'met' if ours < 60 else 'MISSED'}); loaded {loaded:,} rows, {distinct:,} "
        f"distinct keys; fold read {summary.events:,}"
    )
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
