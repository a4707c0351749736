"""Killing the receiver mid-burst and the fold mid-load loses nothing and duplicates nothing."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
from conftest import WFM_SYNC, query
from support.servers import free_port, start_receiver

from emulator.webhooks import build_burst, send_burst
from inbox import Inbox, ReceivedEvent, read_envelope

FOLD = (
    "from pipelines.fold import run_fold\n"
    "from sources.configuration import resolve\n"
    "run_fold(project=resolve())"
)
"""A fold in a process of its own, its project resolved from the environment."""

TOKEN = "kill-test-token"


def inbox_keys(inbox_url: str) -> list[str]:
    inbox = Inbox(inbox_url)
    try:
        with inbox.engine.connect() as conn:
            return [r[0] for r in conn.exec_driver_sql("select event_key from inbox_events")]
    finally:
        inbox.close()


def test_receiver_killed_mid_burst_keeps_every_acknowledged_event(tmp_path, warehouse):
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    port = free_port()
    url = f"http://127.0.0.1:{port}/webhooks/connecteam"
    bodies = build_burst(4000, seed=21, duplicate_rate=0.1)
    receiver = start_receiver(port, inbox_url, TOKEN)
    reports = []

    def burst() -> None:
        reports.append(asyncio.run(send_burst(url, bodies, token=TOKEN, concurrency=32, timeout=5)))

    sender = threading.Thread(target=burst)
    sender.start()
    deadline = time.monotonic() + 30
    while len(inbox_keys(inbox_url)) < 300 and time.monotonic() < deadline:
        time.sleep(0.05)
    receiver.send_signal(signal.SIGKILL)  # mid-burst, requests in flight
    receiver.wait(10)
    sender.join()
    first = reports[0]
    assert 0 < len(first.acknowledged_keys) < 4000, "the kill should land mid-burst"
    assert first.statuses.get(0, 0) > 0  # requests the dead receiver never answered
    stored = set(inbox_keys(inbox_url))
    assert first.acknowledged_keys <= stored  # every 200 was durable before it was sent

    # The provider retries what got no 200; after the restart everything lands exactly once.
    receiver = start_receiver(port, inbox_url, TOKEN)
    try:
        unanswered = [b for b in bodies if b[1] not in first.acknowledged_ids]
        # with the provider's own re-deliveries: a request caught by a restart-time hiccup
        # (a dropped keep-alive connection on a busy machine) is sent again, not lost
        retry = asyncio.run(send_burst(url, unanswered, token=TOKEN, concurrency=32, retries=3))
        assert retry.statuses.get(0, 0) == 0, (retry.statuses, retry.errors)
    finally:
        receiver.send_signal(signal.SIGTERM)
        receiver.wait(10)
    everything = first.acknowledged_keys | retry.acknowledged_keys
    assert len(everything) == 4000
    keys = inbox_keys(inbox_url)
    assert len(keys) == len(set(keys)) == 4000

    env = dict(os.environ, WEBHOOKS__INBOX_URL=inbox_url)
    fold = subprocess.run([*WFM_SYNC, "webhooks", "fold"], env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert fold.returncode == 0, fold.stderr[-3000:]
    assert "4,000" in fold.stdout  # the fold's summary: events folded
    folded = [r[0] for r in query(warehouse, "select event_key from webhooks.events")]
    assert len(folded) == len(set(folded)) == 4000 and set(folded) == everything


def fill_inbox(inbox_url: str, n: int) -> None:
    inbox = Inbox(inbox_url)
    try:
        batch = []
        for i, (body, _key, _family) in enumerate(build_burst(n, seed=5)):
            batch.append(ReceivedEvent(read_envelope(orjson.loads(body), body), body, time.time()))
            if len(batch) == 5000 or i == n - 1:
                inbox.insert_events(batch)
                batch = []
    finally:
        inbox.close()


def test_fold_killed_mid_load_then_rerun_folds_each_event_once(tmp_path, warehouse):
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    fill_inbox(inbox_url, 30_000)
    env = dict(os.environ, WEBHOOKS__INBOX_URL=inbox_url)
    runner = [sys.executable, "-c", FOLD]
    packages = Path(warehouse).parent / "pipelines" / "webhooks" / "load" / "normalized"
    process = subprocess.Popen(runner, env=env, stderr=subprocess.PIPE)
    killed = False
    while process.poll() is None:
        if packages.exists() and any(packages.iterdir()):
            process.send_signal(signal.SIGKILL)
            process.wait(10)
            killed = True
            break
        time.sleep(0.002)
    assert killed, "the fold finished before it could be killed"
    unfolded = Inbox(inbox_url)
    assert unfolded.counts()["unfolded"] == 30_000  # nothing marked before the load committed
    unfolded.close()

    again = subprocess.run(runner, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert query(warehouse, "select count(*), count(distinct event_key) from webhooks.events") == [
        (30_000, 30_000)
    ]
    after = Inbox(inbox_url)
    assert after.counts()["unfolded"] == 0
    after.close()


def test_a_failed_fold_names_the_events_it_was_loading_and_loses_none(tmp_path, warehouse):
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    fill_inbox(inbox_url, 500)
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    # another process holds the DuckDB warehouse: the fold's load cannot open it
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('ready', flush=True); time.sleep(120)", str(warehouse)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
    env = dict(os.environ, WEBHOOKS__INBOX_URL=inbox_url)
    fold = [sys.executable, "-c", FOLD]
    try:  # the job itself (the flow would retry it twice, 35 s apart, with the same message)
        failed = subprocess.run(fold, env=env, capture_output=True, text=True, timeout=300)
    finally:
        holder.kill()
        holder.wait(10)
    assert failed.returncode == 1
    assert re.search(r"fold of inbox (ids 1\.\.500 \(500 events|events up to id 500)",
                     failed.stdout + failed.stderr), failed.stderr[-3000:]  # fmt: skip
    assert "the next fold retries them" in failed.stdout + failed.stderr
    folded = subprocess.run([*WFM_SYNC, "webhooks", "fold"], env=env, capture_output=True,
                            text=True, timeout=300)  # fmt: skip
    assert folded.returncode == 0, folded.stderr[-3000:]
    keys = [r[0] for r in query(warehouse, "select event_key from webhooks.events")]
    assert len(keys) == len(set(keys)) == 500


def test_jobs_take_turns_on_the_duckdb_warehouse(tmp_path, warehouse):
    """A fold started while another job writes the warehouse waits for it instead of failing;
    one that waits past WFM_SYNC_WRITER_TIMEOUT fails with a message naming the lock."""
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    fill_inbox(inbox_url, 200)
    # the holder keeps the lock until told (a line on its stdin), however slow the machine is
    holder_code = (
        "import sys, time; from pipelines.writers import warehouse_writer\n"
        "from sources.configuration import resolve\n"
        "with warehouse_writer('nightly', resolve()):\n"
        "    print('holding', flush=True); sys.stdin.readline()\n"
        "    open(sys.argv[1], 'w').write(str(time.time()))\n"
    )
    released = tmp_path / "released"
    env = dict(os.environ, WEBHOOKS__INBOX_URL=inbox_url)
    code = (
        f"import logging, time; logging.basicConfig(level=logging.INFO)\n{FOLD}\nprint(time.time())"
    )
    fold = [sys.executable, "-c", code]

    def hold() -> subprocess.Popen[str]:
        holder = subprocess.Popen(
            [sys.executable, "-c", holder_code, str(released)],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        return holder

    holder = hold()
    waiting = subprocess.Popen(fold, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)  # fmt: skip
    assert waiting.stderr is not None and holder.stdin is not None
    logged = []
    for line in waiting.stderr:  # until the fold says it waits (or ends without waiting)
        logged.append(line)
        if "waiting for another job to finish writing" in line:
            break
    holder.stdin.write("release\n")
    holder.stdin.close()
    assert holder.wait(30) == 0
    out, err = waiting.communicate(timeout=300)
    assert waiting.returncode == 0, ("".join(logged) + err)[-3000:]
    assert "waiting for another job to finish writing" in "".join(logged), "".join(logged)
    finished = float(out.strip().splitlines()[-1])
    assert finished >= float(released.read_text())  # the fold loaded after the holder let go
    assert query(warehouse, "select count(*) from webhooks.events")[0][0] == 200

    holder = hold()
    try:
        refused = subprocess.run(fold, env=dict(env, WFM_SYNC_WRITER_TIMEOUT="0.5"),
                                 capture_output=True, text=True, timeout=300)  # fmt: skip
    finally:
        holder.kill()
        holder.wait(10)
    assert refused.returncode == 1
    assert "WarehouseBusyError" in refused.stderr and ".lock" in refused.stderr
