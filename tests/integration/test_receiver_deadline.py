"""Deadlines within one group commit, against a real receiver (uvicorn on 127.0.0.1) and a real
SQLite or PostgreSQL inbox: a delivery near its deadline does not fail the fresh ones committed
with it, and a write's short wait for the lock does not stay on the pooled connection."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from support.webhooks import deliver, hook_url

from emulator.server import BackgroundServer
from inbox import Inbox, ReceivedEvent
from inbox.envelope import read_envelope
from receiver import ReceiverConfig, create_app

TOKEN = "deadline-token-51c0"
DEADLINE = 4.0
"""The receiver's answer deadline in these tests, seconds."""


def event(i: int) -> bytes:
    return orjson.dumps({"requestId": f"deadline-{i}", "eventType": "clock_in", "userId": 100 + i,
                         "eventTimestamp": 1_790_000_000 + i})  # fmt: skip


def post(server: BackgroundServer, body: bytes) -> httpx.Response:
    """:func:`support.webhooks.deliver` to ``server``'s webhook URL, with :data:`TOKEN`."""
    return deliver(hook_url(server), body, TOKEN, timeout=60)


def wait_until(condition: Callable[[], bool], what: str, seconds: float = 30) -> None:
    limit = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < limit, what
        time.sleep(0.01)


class Lock:
    """The inbox's write lock, held by another connection: SQLite's (``BEGIN IMMEDIATE``, as a
    fold's ``mark_folded`` takes it) or, on PostgreSQL, both inbox tables in SHARE mode (reads
    pass, every insert waits)."""

    def __init__(self, inbox_url: str) -> None:
        self.sqlite = inbox_url.startswith("sqlite")
        if self.sqlite:
            self.conn: Any = sqlite3.connect(inbox_url.removeprefix("sqlite:///"),
                                             isolation_level=None, timeout=30)  # fmt: skip
        else:
            import psycopg2

            self.conn = psycopg2.connect(inbox_url)

    def hold(self) -> None:
        statement = (
            "BEGIN IMMEDIATE"
            if self.sqlite
            else "lock table inbox_events, inbox_quarantine in share mode"
        )
        self.conn.cursor().execute(statement)

    def release(self) -> None:
        self.conn.rollback()


@pytest.fixture(params=["sqlite", "postgresql"])
def inbox_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    return str(request.getfixturevalue("postgres"))


def test_a_delivery_near_its_deadline_does_not_fail_fresh_ones_in_its_group(inbox_url: str):
    """Group 1 (one delivery) waits for a held write lock until its deadline; meanwhile one
    delivery arrives and, a second later, five more. They form group 2, whose oldest has 0.5 s
    left. The lock is released only after that oldest was answered 503: the five fresh ones, with
    about a second left, are stored."""
    app = create_app(ReceiverConfig(token=TOKEN, inbox_url=inbox_url,
                                      deadline_seconds=DEADLINE))  # fmt: skip
    writer = app.state.writer
    lock = Lock(inbox_url)
    with BackgroundServer(app) as server, ThreadPoolExecutor(8) as pool:
        lock.hold()
        try:
            first = pool.submit(post, server, event(0))
            wait_until(lambda: writer.groups == 1, "group 1 was not taken")
            time.sleep(0.5)
            old = pool.submit(post, server, event(1))
            wait_until(lambda: writer.pending() == 1, "the old delivery was not queued")
            time.sleep(1.0)
            fresh = [pool.submit(post, server, event(i)) for i in range(2, 7)]
            wait_until(lambda: writer.pending() == 6, "the fresh deliveries were not queued")
            assert writer.groups == 1, "group 1 ended before the fresh deliveries were queued"
            assert old.result().status_code == 503, old.result().text
            assert writer.groups == 2  # the old delivery and the fresh ones: one group
            time.sleep(0.3)  # the lock outlives the old delivery's deadline
        finally:
            lock.release()
        answers = [future.result() for future in fresh]
        assert [a.status_code for a in answers] == [200] * 5, [a.text for a in answers]
        assert first.result().status_code == 503
    lock.conn.close()
    inbox = Inbox(inbox_url)
    try:
        assert inbox.counts()["events"] == 5
    finally:
        inbox.close()


@pytest.mark.parametrize(("query", "expected_ms"), [("", 30_000), ("?timeout=5", 5_000)])
def test_a_short_wait_does_not_stay_on_the_pooled_connection(
    tmp_path: Path, query: str, expected_ms: int
):
    """After a write given a 0.2 s wait, the inbox's other users wait for a busy writer as long
    as the inbox is configured to (their ``PRAGMA busy_timeout``), and so does the next write
    that states no wait, on the same pooled connection."""
    inbox = Inbox(f"sqlite:///{tmp_path / 'inbox.sqlite3'}{query}")
    writes = inbox._engines.writes
    try:
        bodies = [event(i) for i in (1, 2)]
        received = [
            ReceivedEvent(read_envelope(orjson.loads(b), b), b, time.time(), None) for b in bodies
        ]
        inbox.store(received[:1], [], timeout=0.2)
        with writes.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 200
        with inbox.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == expected_ms
        inbox.store(received[1:], [])
        assert writes.pool.checkedin() == 1  # both writes used the one connection
        with writes.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == expected_ms
        assert inbox.counts()["events"] == 2
    finally:
        inbox.close()


@pytest.mark.parametrize(("deadline", "step"), [(10.0, 0.025), (0.2, 0.01)])
def test_a_group_waits_for_a_lock_until_just_before_its_earliest_deadline(
    tmp_path: Path, deadline: float, step: float
):
    """The wait a group's transaction is given ends before the group's earliest deadline and
    less than half of ``MIN_LEFT`` (a tenth of the deadline when that is shorter) before it, in
    whole steps of that half, so consecutive groups pass the inbox the same wait."""
    from receiver.writer import GroupCommitWriter

    inbox = Inbox(f"sqlite:///{tmp_path / 'inbox.sqlite3'}")
    writer = GroupCommitWriter(inbox, deadline=deadline)
    try:
        for left in (deadline, deadline * 0.73, 0.3):
            earliest = time.monotonic() + left
            wait = writer._wait(earliest)
            assert 0 < wait <= left
            assert left - wait < step + 0.005  # the call itself takes a little of the time
            assert abs(wait / step - round(wait / step)) < 1e-6
    finally:
        writer.close()
        inbox.close()
