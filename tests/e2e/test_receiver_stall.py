"""The receiver answers within its deadline or says it cannot: a stalled inbox (an SQLite write lock
held by another connection; a PostgreSQL table locked by another backend sleeping in
``pg_sleep``), a full queue, a dead writer thread; and the quarantine stays within its byte
budget. Each against ``wfm-sync webhooks serve`` as a real process on 127.0.0.1 and a real
SQLite or PostgreSQL inbox."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import orjson
import pytest
import sqlalchemy as sa
from conftest import WFM_SYNC
from support.servers import free_port
from typer.testing import CliRunner

from benchmarks.webhooks_fold import BURST_DUCKDB_LIMIT, FOLD_PEAK_MIB, fold_in_child
from flows.cli import app
from inbox import Inbox, ReceivedEvent
from inbox.envelope import read_envelope
from receiver import PATH

TOKEN = "stall-token-3b9d"
DEADLINE = 2.0
"""The receivers' answer deadline in these tests, seconds."""
SLACK = 3.0
"""Seconds an answer may take beyond the deadline on a busy 2-core machine (the commit grace is
1 s at this deadline)."""


@dataclass
class Receiver:
    process: subprocess.Popen[bytes]
    url: str

    def post(
        self, body: bytes, headers: dict[str, str] | None = None
    ) -> tuple[httpx.Response, float]:
        started = time.monotonic()
        response = httpx.post(self.url + PATH, content=body, timeout=60,
                              headers={"x-webhook-token": TOKEN, **(headers or {})})  # fmt: skip
        return response, time.monotonic() - started

    def health(self) -> httpx.Response:
        return httpx.get(self.url + "/healthz", timeout=60)

    def wait_healthy(self, seconds: float = 30) -> None:
        limit = time.monotonic() + seconds
        while (answer := self.health()).status_code != 200:
            assert time.monotonic() < limit, answer.text
            time.sleep(0.2)


@contextmanager
def receiver(inbox_url: str, *args: str, **env: str) -> Iterator[Receiver]:
    """``wfm-sync webhooks serve --deadline 2`` on a free port, once /healthz answers 200."""
    port = free_port()
    environment = dict(os.environ, WEBHOOKS__TOKEN=TOKEN, WEBHOOKS__INBOX_URL=inbox_url, **env)
    command = [*WFM_SYNC, "webhooks", "serve", "--port", str(port), "--deadline", str(DEADLINE)]
    process = subprocess.Popen([*command, *args], env=environment,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    running = Receiver(process, f"http://127.0.0.1:{port}")
    try:
        limit = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stderr.read() if process.stderr else b""
            try:
                if running.health().status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < limit, "the receiver did not start"
            time.sleep(0.1)
        yield running
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(30)


def event(i: int, marker: str = "") -> bytes:
    return orjson.dumps({"requestId": f"stall-{i}", "eventType": "clock_in", "userId": 100 + i,
                         "eventTimestamp": 1_790_000_000 + i, "note": marker})  # fmt: skip


def stored_keys(inbox_url: str) -> list[str]:
    inbox = Inbox(inbox_url)
    try:
        with inbox.engine.connect() as conn:
            return list(conn.execute(sa.text("select event_key from inbox_events")).scalars())
    finally:
        inbox.close()


def stall_then_recover(server: Receiver, inbox_url: str, hold: object, release: object) -> None:
    """Before, during and after a stall: answers within the deadline, /healthz, nothing lost."""
    keys = {server.post(event(0))[0].json()["eventKey"]}
    hold()  # type: ignore[operator]
    try:
        with ThreadPoolExecutor(6) as pool:
            during = list(pool.map(lambda i: server.post(event(i)), range(1, 7)))
        for response, seconds in during:
            assert response.status_code == 503, response.text
            assert seconds < DEADLINE + SLACK, seconds
            assert response.headers["retry-after"] == "2"
        unhealthy = server.health()
        assert unhealthy.status_code == 503 and unhealthy.json()["reason"], unhealthy.text
    finally:
        release()  # type: ignore[operator]
    server.wait_healthy()
    for i in range(7, 12):
        response, _ = server.post(event(i))
        assert response.status_code == 200, response.text
        keys.add(response.json()["eventKey"])
    assert set(stored_keys(inbox_url)) == keys  # every 200 stored; no 503 stored
    for i in range(1, 7):  # the sender's retries of what was answered 503: stored once
        response, _ = server.post(event(i))
        assert response.json()["status"] == "stored", response.text
        keys.add(response.json()["eventKey"])
    assert server.post(event(3))[0].json()["status"] == "already stored"
    assert sorted(stored_keys(inbox_url)) == sorted(keys) and len(keys) == 12


def test_an_sqlite_inbox_locked_by_another_writer_answers_503_in_time_then_recovers(tmp_path):
    path = tmp_path / "inbox.sqlite3"
    inbox_url = f"sqlite:///{path}"
    holder = sqlite3.connect(path, isolation_level=None, timeout=30)
    with receiver(inbox_url) as server:
        stall_then_recover(
            server, inbox_url, lambda: holder.execute("BEGIN IMMEDIATE"), holder.rollback
        )
    holder.close()


def test_a_postgresql_inbox_locked_by_a_sleeping_backend_answers_503_in_time_then_recovers(
    postgres,
):
    import psycopg2

    marker = "body-text-that-must-not-be-logged-71c2"
    locker = psycopg2.connect(postgres)
    sleeping: dict[str, object] = {}

    def hold() -> None:
        with locker.cursor() as cursor:  # SHARE: reads pass, every insert waits
            cursor.execute("lock table inbox_events, inbox_quarantine in share mode")
            cursor.execute("select pg_backend_pid()")
            (sleeping["pid"],) = cursor.fetchone()

        def sleep() -> None:
            with locker.cursor() as cursor, pytest.raises(psycopg2.errors.QueryCanceled):
                cursor.execute("select pg_sleep(600)")  # the lock's holder, paused

        sleeping["thread"] = thread = threading.Thread(target=sleep)
        thread.start()

    def release() -> None:
        canceller = psycopg2.connect(postgres)
        canceller.autocommit = True
        with canceller.cursor() as cursor:
            cursor.execute("select pg_cancel_backend(%s)", (sleeping["pid"],))
        canceller.close()
        thread = sleeping["thread"]
        assert isinstance(thread, threading.Thread)
        thread.join(30)
        locker.rollback()

    with receiver(postgres) as server:
        stall_then_recover(server, postgres, hold, release)
        # a commit failing with the table locked: its error names no body (hide_parameters)
        hold()
        inbox = Inbox(postgres)
        raw = event(99, marker)
        envelope = read_envelope(orjson.loads(raw), raw)
        try:
            with pytest.raises(sa.exc.OperationalError) as failed:
                inbox.store([ReceivedEvent(envelope, raw, time.time())], [], timeout=0.5)
        finally:
            release()
            inbox.close()
        message = str(failed.value)  # the statement that failed was the insert of the body
        assert "timeout" in message and "INSERT INTO inbox_events" in message
        assert "parameters hidden" in message and marker not in message
        # and the receiver's own log of its failed commits holds no body either
        hold()
        try:
            assert server.post(event(98, marker))[0].status_code == 503
        finally:
            release()
        server.process.terminate()
        _, log = server.process.communicate(timeout=30)
    assert b"inbox commit of 1 item(s) failed" in log and marker.encode() not in log
    locker.close()


def test_a_full_queue_answers_503_at_once(tmp_path):
    path = tmp_path / "inbox.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None, timeout=30)
    with receiver(f"sqlite:///{path}", "--queue-size", "2") as server:
        holder.execute("BEGIN IMMEDIATE")
        try:
            with ThreadPoolExecutor(12) as pool:
                answers = list(pool.map(lambda i: server.post(event(i)), range(12)))
        finally:
            holder.rollback()
        busy = [(r, s) for r, s in answers if "busy" in r.json()["detail"]]
        assert len(busy) >= 12 - 2 - 2 - 2  # at most 2 queued and 2 in the stalled group (+2)
        for response, seconds in busy:
            assert response.status_code == 503 and response.headers["retry-after"] == "2"
            assert seconds < DEADLINE / 2, seconds  # at once, not at the deadline
        assert all(r.status_code == 503 for r, _ in answers)
        server.wait_healthy()
        assert server.post(event(0))[0].json()["status"] == "stored"  # none of them was kept
    holder.close()


def test_the_writer_thread_dying_stops_the_process_with_a_non_zero_exit(tmp_path):
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    with receiver(inbox_url) as server:
        assert server.post(event(1))[0].status_code == 200
        server.process.send_signal(signal.SIGUSR2)  # the documented fire drill
        code = server.process.wait(30)
        log = server.process.stderr.read() if server.process.stderr else b""
    assert code == 1, log
    assert b"the inbox writer died" in log and b"WriterFaultError" in log


@pytest.mark.slow
def test_a_burst_of_oversized_bodies_keeps_the_quarantine_within_its_byte_budget(
    tmp_path, warehouse, monkeypatch
):
    """200 bodies of 1 MiB + 1 byte (413: their first MiB quarantined) against a 50 MiB budget.
    Measured: the bytes of the bodies held (what the budget governs) and the SQLite file, as it
    is (freed pages are reused) and after a VACUUM; then the next fold, in a process of its own,
    folds what was kept within the fold's memory target (benchmarks/README.md, ``VmHWM``)."""
    path = tmp_path / "inbox.sqlite3"
    inbox_url = f"sqlite:///{path}"
    budget, mib = 50 * 1024 * 1024, 1024 * 1024
    with receiver(inbox_url, WEBHOOKS__QUARANTINE_MAX_BYTES=str(budget)) as server:
        assert server.post(event(1))[0].status_code == 200
        body = b"x" * (mib + 1)
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda i: server.post(body)[0].status_code, range(200)))
        assert answers == [413] * 200
    inbox = Inbox(inbox_url)
    counts = inbox.counts()
    inbox.close()
    held = sum(size for (size,) in sqlite3.connect(path).execute(
        "select length(body) from inbox_quarantine"))  # fmt: skip
    assert held == counts["quarantine_bytes"] <= budget
    assert counts["quarantine"] == 50 and counts["quarantine_dropped"] == 150
    assert counts["quarantine_dropped_bytes"] == 150 * mib and counts["events"] == 1
    monkeypatch.setenv("WEBHOOKS__INBOX_URL", inbox_url)
    report = json.loads(CliRunner().invoke(app, ["status", "--json"]).stdout)
    assert report["inbox"]["quarantine_dropped"] == 150  # `wfm-sync status` reports the loss
    file_size = path.stat().st_size
    assert file_size < budget + 16 * mib, file_size  # a group's bodies over the budget at most
    vacuum = sqlite3.connect(path, isolation_level=None)
    vacuum.execute("vacuum")
    vacuum.close()
    assert path.stat().st_size < budget + 2 * mib
    env = dict(os.environ, WFM_SYNC_DUCKDB_MEMORY_LIMIT=BURST_DUCKDB_LIMIT)  # as the benchmark
    folded = fold_in_child(inbox_url, env)
    assert folded["quarantined"] == 50 and folded["events"] == 1
    assert folded["peak_mib"] <= FOLD_PEAK_MIB, folded


def test_limits_out_of_range_are_refused_naming_the_setting(tmp_path):
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    env = dict(os.environ, WEBHOOKS__TOKEN=TOKEN, WEBHOOKS__INBOX_URL=inbox_url)
    for args, setting in (
        (["--deadline", "30"], "WEBHOOKS__DEADLINE_SECONDS (or --deadline)"),
        (["--queue-size", "0"], "WEBHOOKS__QUEUE_SIZE (or --queue-size)"),
    ):
        done = subprocess.run([*WFM_SYNC, "webhooks", "serve", *args], env=env,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert done.returncode == 2 and setting in done.stderr, done.stderr
    small = dict(env, WEBHOOKS__QUARANTINE_MAX_BYTES="1000")
    done = subprocess.run([*WFM_SYNC, "webhooks", "serve"], env=small, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2 and "WEBHOOKS__QUARANTINE_MAX_BYTES" in done.stderr
    assert not Path(inbox_url[len("sqlite:///") :]).exists()  # refused before opening anything
