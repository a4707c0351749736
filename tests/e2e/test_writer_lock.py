"""One writer per warehouse and job on PostgreSQL: the advisory lock of
:func:`pipelines.warehouse.warehouse_writer`, held by a real second process against the suite's
real PostgreSQL server (tests/servers.py)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.servers import fresh_database

from pipelines.warehouse import WarehouseBusyError, WarehouseUnreachableError
from pipelines.writer_lock import advisory_key
from pipelines.writers import warehouse_writer
from sources.configuration import resolve

PASSWORD = "wfm-test"
"""The test server's password (tests/servers.py), carried by the database URL."""
HOLDER = """
import sys, time
from pipelines.writers import warehouse_writer
from sources.configuration import resolve
with warehouse_writer(sys.argv[1], resolve()):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
print("released", flush=True)
"""


@pytest.fixture(scope="module")
def warehouse_db(postgres: str) -> str:
    """A fresh PostgreSQL warehouse database on the module's server."""
    return fresh_database(postgres, "locks")


@pytest.fixture
def on_postgres(warehouse_db: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    """This process (and the holders it starts) configured for the PostgreSQL warehouse."""
    monkeypatch.setenv("WFM_SYNC_DESTINATION", "postgres")
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", warehouse_db)
    monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(tmp_path / "wh" / "w.duckdb"))
    return warehouse_db


@pytest.fixture
def hold() -> Iterator[object]:
    """``hold(job, seconds)``: a separate process holding ``job``'s writer lock (returns it
    once the lock is taken); every holder is killed at the end."""
    started: list[subprocess.Popen[str]] = []

    def start(job: str, seconds: float = 600) -> subprocess.Popen[str]:
        command = [sys.executable, "-c", HOLDER, job, str(seconds)]
        pipe = subprocess.PIPE
        process = subprocess.Popen(command, stdout=pipe, stderr=pipe, text=True)
        started.append(process)
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.strip() == "held", process.stderr.read() if process.stderr else ""
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(10)


def test_a_second_job_of_the_same_kind_waits_then_gives_up_naming_the_job(
    on_postgres, hold, monkeypatch, caplog
):
    monkeypatch.setenv("WFM_SYNC_WRITER_TIMEOUT", "2")
    hold("fold")
    caplog.set_level(logging.INFO, logger="pipelines.warehouse")
    began = time.monotonic()
    with pytest.raises(WarehouseBusyError) as refused, warehouse_writer("fold", project=resolve()):
        pytest.fail("the fold's lock was taken twice")
    waited = time.monotonic() - began
    message = str(refused.value)
    assert message.startswith("fold: another fold job held the warehouse postgresql://wfm:***@")
    assert "for more than 2 s" in message and "WFM_SYNC_WRITER_TIMEOUT" in message
    assert PASSWORD not in message
    assert waited >= 2  # it waited the whole writer_timeout before giving up
    waiting = [m for m in caplog.messages if "waiting for another job" in m]
    assert len(waiting) == 1 and waiting[0].startswith("fold: waiting for another job to finish")
    assert str(advisory_key(on_postgres.rsplit("/", 1)[1], "fold")) in waiting[0]
    assert PASSWORD not in waiting[0]


def test_jobs_of_other_kinds_are_not_blocked_and_the_same_kind_takes_turns(
    on_postgres, hold, monkeypatch
):
    monkeypatch.setenv("WFM_SYNC_WRITER_TIMEOUT", "0")
    hold("fold")
    for other in ("sync", "models", "documents"):
        with warehouse_writer(other, project=resolve()):
            pass
    monkeypatch.setenv("WFM_SYNC_WRITER_TIMEOUT", "120")
    holder = hold("sync", seconds=1)
    with warehouse_writer("sync", project=resolve()):  # waits for the holder's end, then takes it
        assert holder.wait(10) == 0
        assert holder.stdout is not None and holder.stdout.read().strip() == "released"


def test_a_killed_holder_releases_the_lock(on_postgres, hold, monkeypatch):
    monkeypatch.setenv("WFM_SYNC_WRITER_TIMEOUT", "0")
    holder = hold("models")
    with pytest.raises(WarehouseBusyError), warehouse_writer("models", project=resolve()):
        pass
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(10)
    monkeypatch.setenv("WFM_SYNC_WRITER_TIMEOUT", "30")  # the server ends the dead session
    with warehouse_writer("models", project=resolve()):
        pass


def test_each_job_takes_its_own_kind_of_lock(on_postgres, hold, monkeypatch, tmp_path):
    from pipelines.documents import run_bulk
    from pipelines.fold import run_fold
    from pipelines.models import build_models
    from pipelines.sync import run_sync

    monkeypatch.setenv("WFM_SYNC_WRITER_TIMEOUT", "0")
    jobs = {
        "fold": lambda: run_fold(
            project=resolve(inbox_url=f"sqlite:///{tmp_path / 'inbox.sqlite3'}")
        ),
        "sync": lambda: run_sync(["users"], project=resolve()),
        "models": lambda: build_models(project=resolve()),
        "documents": lambda: run_bulk([], journal=tmp_path / "journal.sqlite3", project=resolve()),
    }
    for kind, job in jobs.items():
        holder = hold(kind)
        with pytest.raises(WarehouseBusyError, match=f"^{kind}: another {kind} job held"):
            job()
        holder.kill()
        holder.wait(10)


def test_an_unreachable_warehouse_names_the_setting_without_the_password(on_postgres, monkeypatch):
    where = on_postgres.split("@", 1)[1].split("/", 1)[0]
    from support.servers import free_port

    monkeypatch.setenv(
        "DESTINATION__POSTGRES__CREDENTIALS", on_postgres.replace(where, f"127.0.0.1:{free_port()}")
    )
    with (
        pytest.raises(WarehouseUnreachableError) as failed,
        warehouse_writer("fold", project=resolve()),
    ):
        pass
    message = str(failed.value)
    assert "DESTINATION__POSTGRES__CREDENTIALS" in message and "postgresql://wfm:***@" in message
    assert PASSWORD not in message


def _lock_backends(url: str) -> list[tuple[int, str]]:
    """``(pid, application_name)`` of every session of ``url``'s server holding an advisory
    lock."""
    import psycopg2

    connection = psycopg2.connect(url)
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "select a.pid, a.application_name from pg_stat_activity a join pg_locks l"
                " on l.pid = a.pid where l.locktype = 'advisory' and l.granted"
            )
            return [(int(p), str(n)) for p, n in cursor.fetchall()]
    finally:
        connection.close()


def test_a_fold_whose_lock_connection_is_killed_mid_job_marks_nothing(
    on_postgres, monkeypatch, tmp_path
):
    import orjson
    import psycopg2

    from emulator.webhooks import build_burst
    from inbox import Inbox, ReceivedEvent, read_envelope
    from pipelines import fold
    from pipelines.warehouse import WriterLockLostError

    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    inbox = Inbox(inbox_url)
    bodies = [b for b, _, _ in build_burst(5, seed=7)]
    events = [ReceivedEvent(read_envelope(orjson.loads(b), b), b, 1.7e9) for b in bodies]
    inbox.insert_events(events)
    finish = fold.finish_pending_loads

    def killed_first(pipeline):  # the job is under way: its lock's session ends on the server
        [(pid, _)] = _lock_backends(on_postgres)
        killer = psycopg2.connect(on_postgres)
        killer.autocommit = True
        with killer.cursor() as cursor:
            cursor.execute("select pg_terminate_backend(%s)", (pid,))
        killer.close()
        return finish(pipeline)

    monkeypatch.setattr(fold, "finish_pending_loads", killed_first)
    with pytest.raises(WriterLockLostError) as lost:
        fold.run_fold(project=resolve(inbox_url=inbox_url))

    message = str(lost.value)
    assert message.startswith("fold: lost the writer lock (advisory lock ")
    assert "run the fold again" in message and PASSWORD not in message
    assert isinstance(lost.value, WarehouseBusyError)  # retried like a busy warehouse
    assert inbox.counts()["unfolded"] == len(bodies)  # no inbox id marked folded
    inbox.close()
    assert _lock_backends(on_postgres) == []


def test_the_lock_connection_takes_the_credentials_query(on_postgres, monkeypatch):
    monkeypatch.setenv(
        "DESTINATION__POSTGRES__CREDENTIALS",
        f"{on_postgres}?options=-c%20application_name%3Dnightly-lock%20-c%20work_mem%3D8MB",
    )
    with warehouse_writer("fold", project=resolve()):
        assert [name for _, name in _lock_backends(on_postgres)] == ["nightly-lock"]


def test_sslmode_require_against_a_server_without_ssl_fails_clearly(on_postgres, monkeypatch):
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", f"{on_postgres}?sslmode=require")
    with (
        pytest.raises(WarehouseUnreachableError) as failed,
        warehouse_writer("fold", project=resolve()),
    ):
        pytest.fail("the lock was taken without the SSL the credentials require")
    message = str(failed.value)
    assert "SSL" in message and "DESTINATION__POSTGRES__CREDENTIALS" in message
    assert PASSWORD not in message
