"""Connections cannot block the receiver (:mod:`receiver.connections`): past the cap a connection
is answered 503 with ``Retry-After`` at once, one that sends no request head is closed within
seconds, a body sent a byte a second is answered within the deadline, a sender that disconnects
mid-body costs no traceback; the counts are logged as one line and kept in the inbox for
``wfm-sync status``. Against ``wfm-sync webhooks serve`` as a real process on 127.0.0.1 with a
real SQLite inbox.

Before (the issue): 2,000 idle connections were all still open after 25 s, 3,000 at a 1,024-file
limit left 0 of 20 valid deliveries answered within 10 s, a slow body was answered after 60 s,
and each disconnect logged a 60-line traceback."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import sqlalchemy as sa
from test_receiver_stall import DEADLINE, SLACK, TOKEN, event, receiver

from inbox import Inbox
from receiver import PATH
from receiver.connections import DISCONNECTED, HEAD_TIMEOUT, IDLE, OVER_CAP, SLOW_BODY

CAP = 60
"""``WEBHOOKS__MAX_CONNECTIONS`` of these tests: small, so a few sockets reach it."""


def open_idle(port: int, count: int) -> list[socket.socket]:
    """``count`` connections to 127.0.0.1:``port`` that send nothing."""
    sockets = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sockets.append(sock)
    return sockets


def answer_of(sock: socket.socket, seconds: float) -> bytes:
    """What the server sent on ``sock`` before closing it (waits at most ``seconds``)."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        return received + b"<still open>"
    except ConnectionResetError:
        pass
    return received


def refusal_counts(inbox_url: str) -> dict[str, int]:
    inbox = Inbox(inbox_url)
    try:
        with inbox.engine.connect() as conn:
            rows = conn.execute(sa.text(
                "select reason, sum(refusal_count) from inbox_refusals group by reason"
            ))  # fmt: skip
            return {reason: int(count) for reason, count in rows}
    finally:
        inbox.close()


def test_idle_connections_are_capped_and_closed_and_deliveries_get_through(tmp_path: Path):
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    with receiver(inbox_url, WEBHOOKS__MAX_CONNECTIONS=str(CAP)) as server:
        port = int(server.url.rsplit(":", 1)[1])
        idle = open_idle(port, CAP + 20)
        started = time.monotonic()
        answers = [answer_of(sock, HEAD_TIMEOUT + SLACK) for sock in idle]
        waited = time.monotonic() - started
        over = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
        assert len(over) >= 20 and all(b"retry-after: 2" in a for a in over), answers[-1]
        assert b"<still open>" not in answers, "an idle connection outlived the head timeout"
        assert waited < HEAD_TIMEOUT + SLACK
        for sock in idle:
            sock.close()
        # the idle ones gone, valid deliveries are stored
        responses = [server.post(event(i))[0] for i in range(5)]
        assert [r.status_code for r in responses] == [200] * 5
        time.sleep(1.5)  # the refusal counts are written every second
    stderr = (server.process.stderr.read() if server.process.stderr else b"").decode()
    assert "Traceback" not in stderr, stderr[-3000:]
    logged = [line for line in stderr.splitlines() if "connections in the last minute" in line]
    assert len(logged) == 1, stderr[-3000:]
    counts = refusal_counts(inbox_url)
    assert counts.get(OVER_CAP, 0) == len(over) and counts.get(IDLE, 0) >= CAP - len(over) + 20


def test_a_slow_body_is_answered_within_the_deadline_and_a_disconnect_costs_no_traceback(
    tmp_path: Path,
):
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    body = event(1)
    head = (
        f"POST {PATH} HTTP/1.1\r\nhost: x\r\nx-webhook-token: {TOKEN}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
    ).encode()
    with receiver(inbox_url) as server:
        port = int(server.url.rsplit(":", 1)[1])
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(head)
        started = time.monotonic()
        slow.settimeout(0.05)
        answer = b""
        for byte in body:  # one byte a second, until the server answers
            slow.sendall(bytes([byte]))
            try:
                answer = slow.recv(4096)
                break
            except TimeoutError:
                time.sleep(0.95)
        took = time.monotonic() - started
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert took < DEADLINE + SLACK, took
        slow.close()
        for _ in range(3):  # half a body, then gone
            gone = socket.create_connection(("127.0.0.1", port))
            gone.sendall(head + body[:10])
            gone.close()
        time.sleep(0.5)
        assert server.post(event(2))[0].status_code == 200
        time.sleep(1.5)
    stderr = (server.process.stderr.read() if server.process.stderr else b"").decode()
    assert "Traceback" not in stderr and "Exception in ASGI application" not in stderr, stderr
    counts = refusal_counts(inbox_url)
    assert counts.get(SLOW_BODY) == 1 and counts.get(DISCONNECTED) == 3, counts


def test_healthz_and_status_say_so_when_the_inbox_disk_is_nearly_full(tmp_path: Path):
    """An SQLite inbox on a 96 MiB tmpfs: with less than the 64 MiB floor free, ``/healthz``
    answers 503 naming the free space (before: 200 ``ok`` between deliveries answered 503,
    its one-row probe still fitting in the WAL), and ``wfm-sync status`` says the inbox cannot
    store events; with the space back, both are well again."""
    from support.servers import fill, small_disk

    with small_disk(96) as disk:
        inbox_url = f"sqlite:///{disk / 'inbox.sqlite3'}"
        with receiver(inbox_url) as server:
            assert server.post(event(1))[0].status_code == 200
            filler = fill(disk, 8 * 1024 * 1024)
            sick = server.health()
            assert sick.status_code == 503 and "below the 64 MiB floor" in sick.text, sick.text
            status = run_status(tmp_path, inbox_url)
            assert "cannot store events" in status and "MiB free beside the inbox" in status
            filler.unlink()
            server.wait_healthy(10)
            assert "cannot store events" not in run_status(tmp_path, inbox_url)


def run_status(folder: Path, inbox_url: str) -> str:
    """``wfm-sync status``'s output for a project in ``folder`` with ``inbox_url``."""
    import os
    import subprocess

    from conftest import WFM_SYNC

    env = dict(os.environ, WEBHOOKS__INBOX_URL=inbox_url,
               DESTINATION__DUCKDB__CREDENTIALS=str(folder / "warehouse.duckdb"))  # fmt: skip
    done = subprocess.run([*WFM_SYNC, "status"], env=env, cwd=folder, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    return done.stdout + done.stderr
