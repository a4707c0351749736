"""Benchmark: what a flood of refused deliveries costs the real events, and what counting costs.

    .venv/bin/python -m benchmarks.receiver_refusals [--rate 200] [--seconds 10] [--flood 16]

``wfm-sync webhooks serve`` (one uvicorn worker, a fresh SQLite inbox, a token and a signing
secret) takes signed events at a fixed rate (open loop, from this process) twice: alone, then
while another process floods it with deliveries refused for a wrong token and for a bad
signature, ``--flood`` connections each, as fast as they are answered. Printed: the events'
p50/p99 answer times and acknowledged count in each run, the refusals answered per second and
counted in the inbox; then the cost of counting itself (:class:`RefusalRecorder.count
<inbox.refusals.RefusalRecorder>` per call, and one flush of a second's counts).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import orjson
import sqlalchemy as sa

from benchmarks.webhooks_receiver import free_port, paced, wait_ready
from emulator.webhooks import signature_headers

TOKEN = "bench-token"
SECRET = "bench-signing-secret"


async def _events(url: str, rate: int, seconds: int) -> dict[str, float]:
    """Signed distinct events at ``rate``/s for ``seconds``: p50/p99 ms, acknowledged, sent."""
    latencies: list[float] = []
    acked = 0
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:

        async def one(i: int) -> None:
            nonlocal acked
            event = {"requestId": f"r-{i}-{time.time_ns()}", "userId": 5,
                     "eventType": "clock_out", "eventTimestamp": 1_790_000_000}  # fmt: skip
            body = orjson.dumps(event)
            headers = {"x-webhook-token": TOKEN, "content-type": "application/json",
                       **signature_headers(SECRET, f"m{i}", int(time.time()), body)}  # fmt: skip
            started = time.perf_counter()
            try:
                answer = await client.post(url, content=body, headers=headers)
                acked += answer.status_code == 200
            except httpx.TransportError:
                pass
            latencies.append((time.perf_counter() - started) * 1000)

        await paced(one, rate, seconds)
    latencies.sort()
    return {"p50": latencies[len(latencies) // 2], "p99": latencies[int(len(latencies) * 0.99)],
            "acked": acked, "sent": len(latencies)}  # fmt: skip


def _flood(url: str, connections: int, stop_at: float, answered: multiprocessing.Value) -> None:  # type: ignore[valid-type]
    """Refused deliveries (half a wrong token, half a bad signature) until ``stop_at``."""
    body = orjson.dumps({"eventType": "clock_in", "eventTimestamp": 1_790_000_000})

    async def worker(n: int) -> int:
        count = 0
        async with httpx.AsyncClient(timeout=30) as client:
            while time.time() < stop_at:
                headers = {"x-webhook-token": "wrong"}
                if n % 2 == 0:
                    stamp = int(time.time())
                    headers = {"x-webhook-token": TOKEN,
                               **signature_headers("not-the-secret", "x", stamp, body)}  # fmt: skip
                with contextlib.suppress(httpx.TransportError):  # a closed connection counts too
                    await client.post(url, content=body, headers=headers)
                count += 1
        return count

    async def all_workers() -> int:
        return sum(await asyncio.gather(*(worker(n) for n in range(2 * connections))))

    answered.value = asyncio.run(all_workers())  # type: ignore[attr-defined]


def _counting_cost() -> tuple[float, float]:
    """µs per :meth:`RefusalRecorder.count`, and ms for one flush of 6 reasons' counts."""
    from inbox.refusals import RefusalRecorder

    folder = Path(tempfile.mkdtemp(prefix="wfm-bench-count-"))
    engine = sa.create_engine(f"sqlite:///{folder / 'inbox.sqlite3'}")
    from inbox.tables import metadata

    metadata.create_all(engine)
    recorder = RefusalRecorder(engine)
    calls = 200_000
    started = time.perf_counter()
    for i in range(calls):
        recorder.count(("wrong token", "missing token", "bad signature: x")[i % 3], time.time())
    per_call = (time.perf_counter() - started) / calls * 1e6
    for reason in ("a", "b", "c", "d", "e", "f"):
        recorder.count(reason, time.time())
    started = time.perf_counter()
    recorder.flush()
    flush_ms = (time.perf_counter() - started) * 1000
    engine.dispose()
    return per_call, flush_ms


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rate", type=int, default=200)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--flood", type=int, default=16)
    parser.add_argument("--project", type=Path, default=None,
                        help="Serve the receiver of this checkout instead (e.g. an older commit "
                        "from `git archive`), for comparison.")  # fmt: skip
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="wfm-bench-"))
    inbox_url = f"sqlite:///{workdir / 'inbox.sqlite3'}"
    env = dict(os.environ, WEBHOOKS__TOKEN=TOKEN, WEBHOOKS__SIGNING_SECRET=SECRET,
               WEBHOOKS__INBOX_URL=inbox_url)  # fmt: skip
    port = free_port()
    command = [str(Path(sys.executable).with_name("wfm-sync"))]
    if args.project is not None:
        env["PYTHONPATH"] = str(args.project)
        command = [sys.executable, "-m", "flows.cli"]
    process = subprocess.Popen([*command, "webhooks", "serve", "--port", str(port)],
                               env=env, cwd=args.project, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        wait_ready(base + "/healthz", process)
        url = base + "/webhooks/connecteam"
        alone = asyncio.run(_events(url, args.rate, args.seconds))
        answered = multiprocessing.Value("q", 0)
        flood_start = time.time() + 1
        flooder = multiprocessing.Process(
            target=_flood, args=(url, args.flood, flood_start + args.seconds + 2, answered)
        )
        flooder.start()
        time.sleep(max(0.0, flood_start - time.time()))
        flooded = asyncio.run(_events(url, args.rate, args.seconds))
        flooder.join()
        flood_seconds = time.time() - flood_start
    finally:
        process.terminate()
        process.wait(30)  # writes the last counts
    engine = sa.create_engine(inbox_url)
    with engine.connect() as conn:
        events = conn.exec_driver_sql("select count(*) from inbox_events").scalar()
        counted: object = "-"
        if sa.inspect(engine).has_table("inbox_refusals"):
            counted = conn.exec_driver_sql("select sum(refusal_count) from inbox_refusals").scalar()
    engine.dispose()
    per_call, flush_ms = _counting_cost()
    print(f"events at {args.rate}/s for {args.seconds} s, signed; {os.cpu_count()} cores")
    print("| run | p50 ms | p99 ms | acknowledged / sent |\n|---|---|---|---|")
    runs = {"alone": alone, f"with the flood ({2 * args.flood} connections)": flooded}
    for name, run in runs.items():
        acked = f"{run['acked']:.0f} / {run['sent']:.0f}"
        print(f"| {name} | {run['p50']:.1f} | {run['p99']:.1f} | {acked} |")
    refused = int(answered.value)
    print(
        f"flood: {refused} refused deliveries answered, {refused / flood_seconds:,.0f}/s; "
        f"counted in the inbox: {counted}; events stored: {events}"
    )
    print(f"counting: {per_call:.2f} µs per refusal (in memory); one flush: {flush_ms:.1f} ms")


if __name__ == "__main__":
    main()
