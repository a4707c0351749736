"""Benchmark: valid deliveries while thousands of idle connections are open, and a slow body.

    .venv/bin/python -m benchmarks.receiver_idle_connections [--idle 19900] [--file-limit N]
        [--code DIR]

Starts ``wfm-sync webhooks serve`` (the code under ``--code``, default this checkout, so an
older checkout can be measured the same way) on 127.0.0.1 with a fresh SQLite inbox and, if
given, a soft open-file limit. Then:

1. opens ``--idle`` connections that send nothing, and at once sends 20 valid deliveries
   concurrently (10 s timeout each): how many were answered, with which status, and the p99 of
   the answered;
2. the same 20 again 6 s later, the idle connections still held by this process;
3. one body sent a byte a second: when it was answered.

Prints one line per step and the receiver's log size; every connection goes to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx
import orjson

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "idle-bench-token"
PATH = "/webhooks/connecteam"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(code: Path, port: int, folder: Path, file_limit: int | None) -> subprocess.Popen[bytes]:
    """The receiver from ``code`` on ``port``, once /healthz answers."""
    env = dict(os.environ, WEBHOOKS__TOKEN=TOKEN, PYTHONPATH=str(code),
               WEBHOOKS__INBOX_URL=f"sqlite:///{folder / 'inbox.sqlite3'}")  # fmt: skip
    limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (file_limit, file_limit))) \
        if file_limit else None  # fmt: skip
    log = (folder / "receiver.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "flows.cli", "webhooks", "serve", "--port", str(port)],
        env=env, cwd=code, stdout=log, stderr=log, preexec_fn=limit,
    )  # fmt: skip
    for _ in range(600):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the receiver did not start")


async def deliveries(url: str, first: int, count: int = 20) -> tuple[Counter[str], list[float]]:
    """``count`` concurrent deliveries: statuses (``timeout`` when unanswered in 10 s) and the
    answer times of the answered, seconds."""

    async def one(client: httpx.AsyncClient, i: int) -> tuple[str, float]:
        body = orjson.dumps({"requestId": f"idle-{i}", "eventType": "clock_in",
                             "eventTimestamp": 1_790_000_000 + i})  # fmt: skip
        started = time.monotonic()
        try:
            answer = await client.post(url + PATH, content=body, timeout=10,
                                       headers={"x-webhook-token": TOKEN})  # fmt: skip
        except httpx.HTTPError as exc:
            return type(exc).__name__, -1.0
        return str(answer.status_code), time.monotonic() - started

    limits = httpx.Limits(max_connections=count, max_keepalive_connections=0)
    async with httpx.AsyncClient(limits=limits) as client:
        got = await asyncio.gather(*(one(client, first + i) for i in range(count)))
    return Counter(s for s, _ in got), sorted(t for _, t in got if t >= 0)


def p99(times: list[float]) -> str:
    return f"{times[min(len(times) - 1, int(len(times) * 0.99))] * 1000:.0f} ms" if times else "-"


def status_line(answer: bytes) -> str:
    return answer.split(b"\r\n")[0].decode() or "(closed, no answer)"


def slow_body(port: int) -> str:
    """A delivery whose body comes a byte a second: its answer's status line and when."""
    body = orjson.dumps({"requestId": "slow", "eventType": "clock_in", "eventTimestamp": 1})
    head = (f"POST {PATH} HTTP/1.1\r\nhost: x\r\nx-webhook-token: {TOKEN}\r\n"
            f"content-length: {len(body)}\r\n\r\n").encode()  # fmt: skip
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(head)
    sock.settimeout(0.05)
    started = time.monotonic()
    for byte in body:
        sock.sendall(bytes([byte]))
        try:
            answer = sock.recv(4096)
            return f"{status_line(answer)} after {time.monotonic() - started:.1f} s"
        except TimeoutError:
            time.sleep(0.95)
    sock.settimeout(120)
    answer = sock.recv(4096)
    return f"{status_line(answer)} after {time.monotonic() - started:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=19_900)
    parser.add_argument("--file-limit", type=int, default=None)
    parser.add_argument("--code", type=Path, default=ROOT)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with tempfile.TemporaryDirectory() as tmp:
        folder, port = Path(tmp), free_port()
        process = start(args.code.resolve(), port, folder, args.file_limit)
        url = f"http://127.0.0.1:{port}"
        idle: list[socket.socket] = []
        try:
            for _ in range(args.idle):
                try:
                    idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
                except OSError:
                    break
            statuses, times = asyncio.run(deliveries(url, 0))
            print(f"{len(idle)} idle connections opened; 20 deliveries at once: "
                  f"{dict(statuses)}, p99 {p99(times)}")  # fmt: skip
            time.sleep(6)
            statuses, times = asyncio.run(deliveries(url, 100))
            print(f"6 s later (idle still held here): {dict(statuses)}, p99 {p99(times)}")
            for sock in idle:
                sock.close()
            print(f"a body a byte a second: {slow_body(port)}")
        finally:
            process.terminate()
            process.wait(60)
        log = (folder / "receiver.log").read_bytes()
        print(f"receiver log: {len(log):,} bytes, {log.count(b'Traceback')} tracebacks")


if __name__ == "__main__":
    main()
