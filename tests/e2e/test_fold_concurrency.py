"""Two folds started at once against one PostgreSQL warehouse, 50 times: every event lands in
``webhooks.events`` exactly once and every inbox row is marked folded. Each fold runs in its own
process with its own connections (two long-lived workers, so the 50 rounds do not pay the
interpreter's start-up 100 times), sharing dlt's working folder as the scheduled fold and the
nightly's fold on one machine do; the inbox and the warehouse are the suite's real PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import psycopg2
import pytest
from support.servers import fresh_database

from emulator.webhooks import build_burst

pytestmark = pytest.mark.slow

RUNS = 50
EVENTS_PER_RUN = 20
WORKER = """
import json, sys
from pipelines.fold import run_fold
from sources.configuration import resolve
print("ready", flush=True)
for _ in sys.stdin:
    try:
        summary = run_fold(project=resolve())
        print(json.dumps({"events": summary.events}), flush=True)
    except Exception as exc:
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"[:2000]}), flush=True)
"""


@pytest.fixture
def fold_workers(
    postgres: str, tmp_path: Path
) -> Iterator[tuple[str, str, list[subprocess.Popen[str]]]]:
    """The inbox URL, the warehouse URL and two fold worker processes configured for them."""
    inbox_url = fresh_database(postgres, "concurrent_inbox")
    warehouse = fresh_database(postgres, "concurrent_warehouse")
    env = dict(
        os.environ,
        WFM_SYNC_DESTINATION="postgres",
        DESTINATION__POSTGRES__CREDENTIALS=warehouse,
        DESTINATION__DUCKDB__CREDENTIALS=str(tmp_path / "side" / "warehouse.duckdb"),
        WEBHOOKS__INBOX_URL=inbox_url,
        WFM_SYNC_WRITER_TIMEOUT="300",
    )
    workers = [
        subprocess.Popen([sys.executable, "-c", WORKER], env=env, text=True,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        for _ in range(2)
    ]  # fmt: skip
    try:
        for worker in workers:
            assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
        yield inbox_url, warehouse, workers
    finally:
        for worker in workers:
            worker.kill()
            worker.wait(10)


def test_two_folds_at_once_fold_every_event_exactly_once_50_times(fold_workers):
    from inbox import Inbox, ReceivedEvent, read_envelope

    inbox_url, warehouse, workers = fold_workers
    inbox = Inbox(inbox_url)
    folded_per_fold: list[int] = []
    errors: list[str] = []
    for run in range(RUNS):
        bodies = build_burst(EVENTS_PER_RUN, seed=1000 + run)
        now = time.time()
        inbox.insert_events(
            [ReceivedEvent(read_envelope(orjson.loads(b), b), b, now) for b, _, _ in bodies]
        )
        for worker in workers:  # both folds start at the same moment
            assert worker.stdin is not None
            worker.stdin.write("fold\n")
            worker.stdin.flush()
        for worker in workers:
            assert worker.stdout is not None
            answer = json.loads(worker.stdout.readline())
            if "error" in answer:
                errors.append(f"run {run}: {answer['error']}")
            else:
                folded_per_fold.append(answer["events"])
    counts = inbox.counts()
    inbox.close()
    with psycopg2.connect(inbox_url) as connection, connection.cursor() as cursor:
        cursor.execute("select event_key from inbox_events")
        stored = {r[0] for r in cursor.fetchall()}
    connection.close()
    with psycopg2.connect(warehouse) as connection, connection.cursor() as cursor:
        cursor.execute("select event_key from webhooks.events")
        loaded = [r[0] for r in cursor.fetchall()]
    connection.close()

    assert errors == []
    assert counts["events"] == len(stored) == RUNS * EVENTS_PER_RUN
    assert counts["unfolded"] == 0  # every inbox id marked folded
    assert len(loaded) == len(set(loaded)) == len(stored)  # no event twice ...
    assert set(loaded) == stored  # ... and none lost
    assert sum(folded_per_fold) == len(stored)  # each event was read by one fold only
    assert folded_per_fold.count(EVENTS_PER_RUN) == RUNS  # per run one fold took all, the other 0
