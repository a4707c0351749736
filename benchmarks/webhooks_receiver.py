"""Benchmark: webhook receiver throughput and answer times, next to a do-nothing FastAPI endpoint.

    .venv/bin/python -m benchmarks.webhooks_receiver [--concurrency 32] [--seconds 15] [--rate 500]

Both servers run as their own process, one uvicorn worker each, on 127.0.0.1:

* reference ``noop``: ``benchmarks/noop_app.py``, reads the body and answers 200;
* ``receiver``: ``wfm-sync webhooks serve`` with a token, writing to a fresh SQLite inbox (WAL,
  ``synchronous=FULL``: each 200 follows a durable commit).

Two loads per server: closed loop with ``wrk`` (Debian package ``wrk``) at a fixed concurrency, a
distinct event per request, giving events/s and wrk's latency percentiles; and an open loop at a
fixed rate (default 500 events/s for 10 s) from this process, giving p50/p99 answer times of the
answered requests and the count left unanswered after 30 s (the provider's wait). After the runs
the inbox must hold a row for every acknowledged event.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import httpx
import orjson

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited with {process.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit(f"server at {url} did not start")


def run_wrk(url: str, concurrency: int, seconds: int) -> dict[str, float]:
    """Closed-loop load with wrk; returns requests/s, non-2xx count and latency percentiles (ms)."""
    out = subprocess.run(
        [
            "wrk",
            "-t1",
            f"-c{concurrency}",
            f"-d{seconds}s",
            "--latency",
            "-s",
            str(ROOT / "benchmarks" / "post_event.lua"),
            url,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result: dict[str, float] = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out)[1])}  # type: ignore[index]
    total = re.search(r"(\d+) requests in", out)
    result["requests"] = float(total[1]) if total else 0.0
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    result["non_2xx"] = float(bad[1]) if bad else 0.0
    for pct in ("50", "99"):
        match = re.search(rf"^\s+{pct}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        if match:
            scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[match[2]]
            result[f"p{pct}"] = float(match[1]) * scale
    return result


async def paced(one: Callable[[int], Coroutine[Any, Any, None]], rate: int, seconds: int) -> float:
    """Start ``one(i)`` for i = 0 .. rate*seconds-1, one every 1/``rate`` s (open loop: never
    waiting for an answer before the next), wait for all; the rate achieved, per second."""
    tasks: list[asyncio.Task[None]] = []
    start = time.perf_counter()
    for i in range(rate * seconds):
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one(i)))
    await asyncio.gather(*tasks)
    return len(tasks) / (time.perf_counter() - start)


async def fixed_rate(url: str, rate: int, seconds: int) -> dict[str, float]:
    """Open loop: one distinct event every 1/rate s; returns p50/p99 ms of the answered ones and
    the counts acknowledged (200), answered otherwise and unanswered within 30 s."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:

        async def one(i: int) -> None:
            body = orjson.dumps(
                {
                    "requestId": f"rate-{i}-{time.time_ns()}",
                    "company": "bench",
                    "eventType": "clock_out",
                    "eventTimestamp": 1_790_000_000,
                    "userId": 5,
                }
            )
            started = time.perf_counter()
            try:
                response = await client.post(
                    url,
                    content=body,
                    headers={"x-webhook-token": TOKEN, "content-type": "application/json"},
                )
            except httpx.HTTPError:  # no answer in 30 s (or no connection): counted, not timed
                statuses[0] = statuses.get(0, 0) + 1
                return
            latencies.append((time.perf_counter() - started) * 1000)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1

        achieved = await paced(one, rate, seconds)
    latencies = sorted(latencies) or [float("nan")]
    return {
        "p50": latencies[len(latencies) // 2],
        "p99": latencies[int(len(latencies) * 0.99) - 1],
        "acked": float(statuses.get(200, 0)),
        "unanswered": float(statuses.get(0, 0)),
        "non_200": float(sum(n for status, n in statuses.items() if status not in (0, 200))),
        "sent": float(rate * seconds),
        "achieved_rate": achieved,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--rate", type=int, default=500)
    parser.add_argument("--rate-seconds", type=int, default=10)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")

    workdir = Path(tempfile.mkdtemp(prefix="wfm-bench-"))
    inbox_url = f"sqlite:///{workdir / 'inbox.sqlite3'}"
    wfm_sync = Path(sys.executable).with_name("wfm-sync")
    servers = {
        "noop (reference)": [
            sys.executable,
            "-m",
            "uvicorn",
            "benchmarks.noop_app:app",
            "--log-level",
            "warning",
            "--port",
        ],
        "receiver": [str(wfm_sync), "webhooks", "serve", "--port"],
    }
    env = dict(os.environ, WEBHOOKS__TOKEN=TOKEN, WEBHOOKS__INBOX_URL=inbox_url)
    results: dict[str, dict[str, float]] = {}
    for name, command in servers.items():
        port = free_port()
        process = subprocess.Popen(
            [*command, str(port)], cwd=ROOT, env=env, stderr=subprocess.DEVNULL
        )
        try:
            base = f"http://127.0.0.1:{port}"
            wait_ready(base + "/docs" if name.startswith("noop") else base + "/healthz", process)
            url = base + "/webhooks/connecteam"
            closed = run_wrk(url, args.concurrency, args.seconds)
            opened = asyncio.run(fixed_rate(url, args.rate, args.rate_seconds))
            results[name] = {
                **{f"wrk_{k}": v for k, v in closed.items()},
                **{f"rate_{k}": v for k, v in opened.items()},
            }
        finally:
            process.terminate()
            process.wait(30)

    from inbox import Inbox

    inbox = Inbox(inbox_url)
    stored = inbox.counts()["events"]
    inbox.close()
    receiver = results["receiver"]
    acked = receiver["wrk_requests"] - receiver["wrk_non_2xx"] + receiver["rate_acked"]

    noop = results["noop (reference)"]
    print(
        f"\n## Webhook receiver ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
        f"{_memory_gib():.0f} GiB, Python {platform.python_version()})\n"
    )
    print(
        f"closed loop: wrk, 1 thread, {args.concurrency} connections, {args.seconds} s; "
        f"open loop: {args.rate} events/s for {args.rate_seconds} s\n"
    )
    print(
        "| endpoint | events/s (closed loop) | p50 ms | p99 ms | p50 ms at "
        f"{args.rate}/s | p99 ms at {args.rate}/s | non-2xx | unanswered at {args.rate}/s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in results.items():
        print(
            f"| {name} | {r['wrk_rps']:,.0f} | {r.get('wrk_p50', 0):.1f} | "
            f"{r.get('wrk_p99', 0):.1f} | {r['rate_p50']:.1f} | {r['rate_p99']:.1f} | "
            f"{r['wrk_non_2xx'] + r['rate_non_200']:.0f} | {r['rate_unanswered']:.0f} |"
        )
    ratio = receiver["wrk_rps"] / noop["wrk_rps"]
    print(
        f"\nreceiver / noop throughput: {ratio:.2f} (target >= 0.5); receiver p99 at "
        f"{args.rate}/s: {receiver['rate_p99']:.1f} ms (target < 50 ms); achieved rate "
        f"{receiver['rate_achieved_rate']:.0f}/s"
    )
    verdict = "every 200 is stored" if stored >= acked else "MISSING EVENTS"
    print(
        f"durability: {acked:.0f} events answered 200, {stored} rows in the inbox: {verdict} "
        "(extra rows: requests still in flight when wrk stopped counting)"
    )
    shutil.rmtree(workdir, ignore_errors=True)


def _memory_gib() -> float:
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        return pages / 1024**3
    except (ValueError, OSError):
        return 0.0


if __name__ == "__main__":
    main()
