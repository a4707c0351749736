"""Benchmark: the static report against marimo's own HTML export of the same notebook.

    make demo   # once: fills data/demo/ (the snapshot and the run log)
    .venv/bin/python -m benchmarks.dashboard_report [--snapshot data/demo/analytics.duckdb]

Writes the report three times (``wfm-sync report``: the dashboard notebook run once, charts as
inline SVG by vl-convert), each in its own process, and, as the reference in the same run,
exports the same notebook on the same snapshot three times with ``marimo export html`` (what
marimo offers for a static page). Shows the median wall time, the peak memory of the process
(max RSS), the file's size, and how many external URLs the page loads (marimo's front end comes
from a CDN; the report loads none).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 3


def timed(command: list[str]) -> tuple[float, float]:
    """Run ``command``; its wall time (s) and peak RSS (MiB, GNU time's ``%M``)."""
    started = time.monotonic()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *command], capture_output=True, text=True, check=False
    )
    elapsed = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return elapsed, int(done.stderr.strip().splitlines()[-1]) / 1024


def external_urls(page: str) -> int:
    """Script, style and asset URLs a page loads from elsewhere (SVG namespaces excepted)."""
    urls = set(re.findall(r"https?://[^\s\"'<>)\\]+", page))
    return len({u for u in urls if "www.w3.org" not in u and "vega.github.io/schema" not in u})


def main() -> None:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--snapshot", default="data/demo/analytics.duckdb")
    args = parser.parse_args()
    snapshot = Path(args.snapshot)
    if not snapshot.exists():
        raise SystemExit(f"no snapshot at {snapshot}: run `make demo` first")
    runs = snapshot.parent / "runs.jsonl"
    wfm_sync = str(Path(sys.executable).with_name("wfm-sync"))
    from flows.cli.dashboard import notebook_file

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        ours = Path(tmp) / "report.html"
        theirs = Path(tmp) / "export.html"
        commands = {
            "wfm-sync report (SVG by vl-convert)": (
                [wfm_sync, "report", "--snapshot", str(snapshot), "--runs", str(runs),
                 "-o", str(ours)],
                ours,
            ),
            "marimo export html (reference)": (
                [sys.executable, "-m", "marimo", "export", "html", str(notebook_file()),
                 "-o", str(theirs), "-f", "--no-include-code", "--",
                 "--snapshot", str(snapshot), "--runs", str(runs)],
                theirs,
            ),
        }  # fmt: skip
        for name, (command, output) in commands.items():
            times, memory = [], []
            for _ in range(RUNS):
                elapsed, rss = timed(command)
                times.append(elapsed)
                memory.append(rss)
            page = output.read_text(encoding="utf-8")
            results.append(
                (name, statistics.median(times), max(memory), len(page.encode()) / 1000,
                 external_urls(page), page.count("<svg"))
            )  # fmt: skip
    print(f"\n{snapshot}: medians of {RUNS} runs, each its own process\n")
    print("| static page | seconds | max RSS MiB | size kB | external URLs | inline SVGs |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, seconds, rss, size, urls, svgs in results:
        print(f"| {name} | {seconds:.1f} | {rss:.0f} | {size:,.0f} | {urls} | {svgs} |")


if __name__ == "__main__":
    main()
