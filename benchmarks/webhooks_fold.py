"""Benchmark: folding a backlog of webhook events from the inbox into DuckDB.

    .venv/bin/python -m benchmarks.webhooks_fold [--events 1000000] [--refused 200]

Fills a fresh SQLite inbox with ``--events`` distinct provider-like events (every catalogued
type, not timed), then measures in the same run:

* reference ``raw copy``: the same inbox rows read with SQLAlchemy in 100,000-row batches, turned
  into Arrow and inserted into a DuckDB table directly (no dlt, no dedup, no state): the floor
  of moving these bytes on this machine;
* ``run_fold``: the fold job (dlt, Parquet, insert-only merge on ``event_key``, marking the inbox
  rows folded).

Then the fold's memory after a burst of oversize bodies: a fresh inbox holding ``--refused``
quarantined bodies of ``--refused-bytes`` (1 MiB: the receiver's limit) is folded by a child
process with DuckDB's memory limit at :data:`BURST_DUCKDB_LIMIT`; its own peak resident memory
(``VmHWM``) is reported against :data:`FOLD_PEAK_MIB`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import orjson
import pyarrow as pa

from sources.configuration import resolve

FOLD_PEAK_MIB = 1280
"""The fold's memory target, in MiB: its process's peak resident memory (``VmHWM``) folding any
backlog, with DuckDB's memory limit at :data:`BURST_DUCKDB_LIMIT` (DuckDB's share of it is the
limit; the rest is the fold's batches, bounded by bytes, and the imports)."""
BURST_DUCKDB_LIMIT = "512MB"
"""``WFM_SYNC_DUCKDB_MEMORY_LIMIT`` of the memory measurement (the default, a quarter of the
memory available, differs per machine)."""
FOLD_CHILD = """
import json, sys, time
from pathlib import Path
from pipelines.fold import run_fold
from sources.configuration import resolve
started = time.perf_counter()
summary = run_fold(project=resolve(inbox_url=sys.argv[1]))
status = Path("/proc/self/status").read_text().splitlines()
peak = int(next(l for l in status if l.startswith("VmHWM:")).split()[1]) / 1024
print(json.dumps({"seconds": time.perf_counter() - started, "events": summary.events,
                  "quarantined": summary.quarantined, "peak_mib": peak}))
"""


def fold_in_child(inbox_url: str, env: dict[str, str]) -> dict[str, float]:
    """``run_fold`` of ``inbox_url`` in a fresh child process with ``env``: its seconds, events
    and quarantined bodies folded, and its peak resident memory in MiB (the child's own
    ``VmHWM`` from ``/proc``, not the parent's).

    Raises:
        subprocess.CalledProcessError: The fold failed (its stderr in the exception).
    """
    out = subprocess.run([sys.executable, "-c", FOLD_CHILD, inbox_url], env=env,
                         capture_output=True, text=True, check=True)  # fmt: skip
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def fill_refused(inbox_url: str, count: int, size: int) -> None:
    """Quarantine ``count`` refused bodies of ``size`` bytes each (413, truncated at the size
    limit as the receiver keeps them; distinct JSON-like text) in the inbox at ``inbox_url``."""
    from inbox import Inbox, RefusedBody

    inbox = Inbox(inbox_url)
    for number in range(count):
        filler = b"%08d" % number * (size // 8 + 1)
        body = (b'{"requestId": "burst-%d", "data": "' % number + filler)[:size]
        refused = RefusedBody(413, f"body larger than {size} bytes", body, 2 * size,
                              "application/json", time.time())  # fmt: skip
        inbox.insert_quarantine([refused])
    inbox.close()


def refused_burst(workdir: Path, count: int, size: int) -> None:
    """Print the fold's peak memory after ``count`` refused bodies of ``size`` bytes."""
    inbox_url = f"sqlite:///{workdir / 'burst.sqlite3'}"
    fill_refused(inbox_url, count, size)
    env = dict(os.environ, DESTINATION__DUCKDB__CREDENTIALS=str(workdir / "burst" / "w.duckdb"),
               WFM_SYNC_DUCKDB_MEMORY_LIMIT=BURST_DUCKDB_LIMIT)  # fmt: skip
    result = fold_in_child(inbox_url, env)
    print(f"\n## Fold after a burst of {count:,} refused bodies of {size:,} bytes "
          f"(DuckDB memory limit {BURST_DUCKDB_LIMIT})\n")  # fmt: skip
    print("| quarantined folded | seconds | peak RSS MiB | target MiB |")
    print("|---:|---:|---:|---:|")
    peak = result["peak_mib"]
    print(f"| {result['quarantined']:,.0f} | {result['seconds']:.1f} | {peak:,.0f} | "
          f"{FOLD_PEAK_MIB:,} ({'met' if peak <= FOLD_PEAK_MIB else 'MISSED'}) |")  # fmt: skip


def fill(inbox_url: str, events: int) -> float:
    from emulator.webhooks import build_burst
    from inbox import Inbox, ReceivedEvent, read_envelope

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
    from inbox import Inbox

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
    parser.add_argument("--refused", type=int, default=200, help="bodies of the burst (0: none)")
    parser.add_argument("--refused-bytes", type=int, default=2**20)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="wfm-fold-bench-"))
    if args.refused:
        refused_burst(workdir, args.refused, args.refused_bytes)
    if not args.events:
        shutil.rmtree(workdir, ignore_errors=True)
        return
    inbox_url = f"sqlite:///{workdir / 'inbox.sqlite3'}"
    os.environ["DESTINATION__DUCKDB__CREDENTIALS"] = str(workdir / "wh" / "warehouse.duckdb")
    print(f"filling the inbox with {args.events:,} events ...", flush=True)
    started = time.perf_counter()
    mean_size = fill(inbox_url, args.events)
    print(f"filled in {time.perf_counter() - started:.0f} s (mean body {mean_size:.0f} bytes)")

    reference = raw_copy(inbox_url, workdir / "raw.duckdb")
    from pipelines.fold import run_fold

    started = time.perf_counter()
    summary = run_fold(project=resolve(inbox_url=inbox_url))
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
