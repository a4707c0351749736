"""Past one machine: a PostgreSQL inbox behind two receivers, a PostgreSQL raw warehouse, and a
Prefect server whose process worker runs the nightly deployment. Every component is real and
started by the test setup (tests/servers.py)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg2
import pytest
from conftest import WFM_SYNC, cli_env, query
from support.accounts import (
    accounts_env,
    assert_each_account_its_own,
    duckdb_fetch,
    postgres_fetch,
    start_two_accounts,
)
from support.servers import free_port, fresh_database, prefect_server, start_receiver

from emulator.webhooks import build_burst, send_burst

TOKEN = "scale-out-token"


def test_two_receivers_share_a_postgres_inbox_and_each_event_folds_once(
    postgres, tmp_path, warehouse
):
    inbox_url = fresh_database(postgres, "inbox")
    ports = [free_port(), free_port()]
    receivers = [start_receiver(port, inbox_url, TOKEN) for port in ports]
    bodies = build_burst(3000, seed=33, duplicate_rate=0.25)
    # every duplicate goes to the *other* receiver than its first copy, at the same time
    halves: list[list[tuple[bytes, str | None, str | None]]] = [[], []]
    first_sent: dict[str | None, int] = {}
    for body in bodies:
        side = 1 - first_sent[body[1]] if body[1] in first_sent else len(first_sent) % 2
        first_sent.setdefault(body[1], side)
        halves[side].append(body)
    reports = [None, None]

    def send(side: int) -> None:
        url = f"http://127.0.0.1:{ports[side]}/webhooks/connecteam"
        reports[side] = asyncio.run(
            send_burst(url, halves[side], token=TOKEN, concurrency=16, retries=3)
        )

    try:
        threads = [threading.Thread(target=send, args=(side,)) for side in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        for receiver in receivers:
            receiver.terminate()
            receiver.wait(10)
    acknowledged = reports[0].acknowledged_keys | reports[1].acknowledged_keys
    assert not any(r.statuses.get(0) for r in reports), [r.errors for r in reports]
    assert len(acknowledged) == 3000
    with psycopg2.connect(inbox_url) as connection, connection.cursor() as cursor:
        cursor.execute("select event_key from inbox_events")
        stored = [r[0] for r in cursor.fetchall()]
    assert len(stored) == len(set(stored)) == 3000 and set(stored) == acknowledged

    env = dict(os.environ, WEBHOOKS__INBOX_URL=inbox_url)
    for _ in range(2):  # the second fold finds nothing new and changes nothing
        fold = subprocess.run([*WFM_SYNC, "webhooks", "fold"], env=env, capture_output=True,
                              text=True, timeout=300)  # fmt: skip
        assert fold.returncode == 0, fold.stderr[-3000:]
    folded = [r[0] for r in query(warehouse, "select event_key from webhooks.events")]
    assert len(folded) == len(set(folded)) == 3000 and set(folded) == acknowledged


KEYED_CONTENT = {
    "users": "select user_id, modified_at from {}.users",
    "forms": "select form_id, last_updated_at from {}.forms",
    "schedulers": "select scheduler_id, name from {}.schedulers",
    "shifts": "select scheduler_id, id, content_hash, is_deleted from {}.shifts",
    "user_documents": "select id, updated_at from {}.user_documents",
}


def test_sync_into_postgres_loads_the_same_rows_as_into_duckdb(
    postgres, start_emulator, tmp_path, warehouse
):
    server = start_emulator(users=700, forms=4, schedulers=2, shifts=1500, seed=8)
    destination = fresh_database(postgres, "raw")
    duck_env = cli_env(server, warehouse)
    pg_env = dict(
        duck_env,
        WFM_SYNC_DESTINATION="postgres",
        DESTINATION__POSTGRES__CREDENTIALS=destination,
        DESTINATION__DUCKDB__CREDENTIALS=str(tmp_path / "pg-side" / "unused.duckdb"),
    )
    for env in (duck_env, pg_env):
        done = subprocess.run([*WFM_SYNC, "sync", "--steps", "sync"], env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
    assert "postgres" in done.stdout  # the summary names where the rows went
    with psycopg2.connect(destination) as connection, connection.cursor() as cursor:
        for table, sql in KEYED_CONTENT.items():
            duck = query(warehouse, sql.format("connecteam"))
            cursor.execute(sql.format("connecteam"))
            pg = [tuple(r) for r in cursor.fetchall()]
            assert len(duck) > 0, table
            assert sorted(pg) == sorted(duck), f"{table} differs between PostgreSQL and DuckDB"


@pytest.fixture(scope="module")
def prefect_api(tmp_path_factory) -> Iterator[str]:
    with prefect_server(tmp_path_factory.mktemp("prefect-server")) as url:
        yield url


@contextmanager
def process_worker(pool: str, env: dict[str, str]) -> Iterator[None]:
    """``prefect worker start --pool <pool>`` for the block; stopped after it (killed when still
    busy with a run after 30 s: the test's assertions say why)."""
    prefect = str(Path(sys.executable).with_name("prefect"))
    worker = subprocess.Popen([prefect, "worker", "start", "--pool", pool], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        yield
    finally:
        worker.terminate()
        try:
            worker.wait(30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(30)


def test_serve_registers_deployments_with_the_configured_schedules(prefect_api, tmp_path):
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    env = dict(
        os.environ, PREFECT_API_URL=prefect_api, DESTINATION__DUCKDB__CREDENTIALS=str(warehouse)
    )
    serving = subprocess.Popen(
        [*WFM_SYNC, "serve", "--cron", "30 3 * * *", "--timezone", "Europe/Berlin",
         "--fold-every", "120"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deployments = {}
        deadline = time.monotonic() + 120
        while len(deployments) < 2 and time.monotonic() < deadline:
            assert serving.poll() is None, serving.stderr.read().decode()[-3000:]
            answer = httpx.post(f"{prefect_api}/deployments/filter", json={}, timeout=10)
            deployments = {d["name"]: d for d in answer.json()}
            time.sleep(0.5)
        nightly = deployments["nightly"]["schedules"][0]["schedule"]
        assert nightly["cron"] == "30 3 * * *" and nightly["timezone"] == "Europe/Berlin"
        fold = deployments["every-5-minutes"]["schedules"][0]["schedule"]
        assert fold["interval"] == 120.0
        assert deployments["nightly"]["schedules"][0]["active"] is True
    finally:
        serving.terminate()
        serving.wait(30)


HANDED_IN = """
import sys
from pathlib import Path

from pydantic import SecretStr

from sources.configuration import resolve
from flows.nightly import nightly_sync

resolved = resolve(Path(sys.argv[3]))
project = resolved.model_copy(update={"source": resolved.source.with_account(*sys.argv[1:3])})
result = nightly_sync(streams=("users",), steps=("sync",), project=project)
print(result.sync.rows["users"])
"""
"""A script running ``nightly_sync`` under Prefect with an account handed in: base URL, key and
warehouse from its arguments, nothing of them in the environment."""


def test_a_handed_in_account_reaches_the_run_and_prefect_keeps_its_key_masked(
    prefect_api, tmp_path, start_emulator
):
    key = "handed-in-key-7c1d"
    server = start_emulator(users=5, api_key=key)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SOURCES__CONNECTEAM__API", "DESTINATION__"))}  # fmt: skip
    env["PREFECT_API_URL"] = prefect_api
    warehouse = tmp_path / "handed" / "warehouse.duckdb"
    done = subprocess.run(
        [sys.executable, "-c", HANDED_IN, server.url, key, str(warehouse)],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "5"
    assert query(warehouse, "select count(*) from connecteam.users") == [(5,)]
    runs = httpx.post(f"{prefect_api}/flow_runs/filter", json={}, timeout=10).json()
    (nightly,) = [r for r in runs if r["parameters"].get("project", {}).get("source")]
    stored = nightly["parameters"]["project"]
    assert stored["source"]["options"]["base_url"] == server.url
    assert stored["source"]["secrets"] == {"api_key": "**********"}
    assert stored["paths"]["warehouse"] == str(warehouse)
    for kind in ("flow_runs", "task_runs", "logs"):
        answer = httpx.post(f"{prefect_api}/{kind}/filter", json={}, timeout=10)
        assert answer.status_code == 200 and key not in answer.text, kind


def test_refuses_to_serve_without_a_prefect_server(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    done = subprocess.run([*WFM_SYNC, "serve"], env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 2
    assert "prefect server start" in done.stderr and "PREFECT_API_URL" in done.stderr


def test_process_worker_runs_the_nightly_deployment_to_completion(
    prefect_api, start_emulator, tmp_path, warehouse
):
    server = start_emulator(users=300, forms=3, schedulers=2, shifts=800, seed=4)
    env = dict(cli_env(server, warehouse), PREFECT_API_URL=prefect_api,
               WEBHOOKS__INBOX_URL=f"sqlite:///{tmp_path / 'inbox.sqlite3'}")  # fmt: skip
    prefect = str(Path(sys.executable).with_name("prefect"))
    subprocess.run([prefect, "work-pool", "create", "wfm-test", "--type", "process"], env=env,
                   check=True, capture_output=True, timeout=120)  # fmt: skip
    deployed = subprocess.run([*WFM_SYNC, "deploy", "--work-pool", "wfm-test"], env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
    assert deployed.returncode == 0, deployed.stderr[-3000:]
    with process_worker("wfm-test", env):
        run = subprocess.run(
            [prefect, "deployment", "run", "nightly_sync/nightly", "--watch",
             "--watch-timeout", "600"],
            env=env, capture_output=True, text=True, timeout=660,
        )  # fmt: skip
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert "Completed" in run.stdout + run.stderr
    answer = httpx.post(f"{prefect_api}/flow_runs/filter", json={}, timeout=10).json()
    names = [r["name"] for r in answer if r["state_type"] == "COMPLETED"]
    assert any(n.startswith("nightly-sync: connecteam") for n in names), names
    ((users,),) = query(warehouse, "select count(*) from connecteam.users")
    assert users == 300
    ((marts,),) = query(
        tmp_path / "wh" / "analytics.duckdb", "select count(*) from marts.dim_users"
    )
    assert marts >= 300


def test_a_process_pool_syncs_two_accounts_at_once_each_through_its_deployment(
    prefect_api, postgres_cluster, start_emulator, tmp_path
):
    """Two accounts on a PostgreSQL warehouse: ``wfm-sync deploy`` registers a sync deployment
    per account, the nightly run starts both, and the pool's process worker runs them at once
    (their flow runs overlap in time); each account's dataset holds its own emulator's rows."""
    accounts = start_two_accounts(start_emulator, latency=0.05)  # each sync takes seconds
    database = fresh_database(postgres_cluster, "accounts_workers")
    env = dict(
        accounts_env(accounts, tmp_path), PREFECT_API_URL=prefect_api,
        WFM_SYNC_DESTINATION="postgres", DESTINATION__POSTGRES__CREDENTIALS=database,
        PREFECT_WORKER_QUERY_SECONDS="1",
    )  # fmt: skip
    prefect = str(Path(sys.executable).with_name("prefect"))
    subprocess.run([prefect, "work-pool", "create", "wfm-accounts", "--type", "process"],
                   env=env, check=True, capture_output=True, timeout=120)  # fmt: skip
    deployed = subprocess.run([*WFM_SYNC, "deploy", "--work-pool", "wfm-accounts"], env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
    assert deployed.returncode == 0, deployed.stderr[-3000:]
    assert "nightly_sync/sync-north" in deployed.stdout
    assert "nightly_sync/sync-south" in deployed.stdout
    with process_worker("wfm-accounts", env):
        run = subprocess.run(
            [prefect, "deployment", "run", "nightly_sync/nightly", "--watch",
             "--watch-timeout", "600", "--params",
             '{"steps": ["sync"], "streams": ["users", "schedulers", "shifts"]}'],
            env=env, capture_output=True, text=True, timeout=660,
        )  # fmt: skip
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    deployments = httpx.post(f"{prefect_api}/deployments/filter", json={}, timeout=10).json()
    names = {d["id"]: d["name"] for d in deployments}
    runs = httpx.post(f"{prefect_api}/flow_runs/filter", json={}, timeout=10).json()
    spans = {
        names.get(r["deployment_id"]): (r["start_time"], r["end_time"], r["state_type"])
        for r in runs
    }
    north, south = spans["sync-north"], spans["sync-south"]
    assert north[2] == south[2] == "COMPLETED", spans
    assert north[0] < south[1] and south[0] < north[1], f"no overlap: {spans}"
    assert_each_account_its_own(accounts, postgres_fetch(database))


def test_a_one_shot_sync_of_two_accounts_records_each_account_s_steps_on_the_server(
    prefect_api, start_emulator, tmp_path
):
    """``wfm-sync sync`` with a Prefect API: the accounts' threads run their steps as task runs
    of the one flow run, each named after its account."""
    accounts = start_two_accounts(start_emulator)
    env = dict(accounts_env(accounts, tmp_path), PREFECT_API_URL=prefect_api)
    done = subprocess.run([*WFM_SYNC, "sync", "--steps", "sync", "--streams",
                           "users,schedulers,shifts"], env=env, capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    flow_runs = httpx.post(f"{prefect_api}/flow_runs/filter", json={}, timeout=10).json()
    (parent,) = [r for r in flow_runs if r["deployment_id"] is None
                 and r["name"].startswith("nightly-sync: connecteam_north")]  # fmt: skip
    task_runs = httpx.post(f"{prefect_api}/task_runs/filter", json={}, timeout=10).json()
    mine = {(r["name"], r["state_type"]) for r in task_runs if r["flow_run_id"] == parent["id"]}
    assert mine == {
        (f"sync-{account}-{group}", "COMPLETED")
        for account in ("north", "south")
        for group in ("users", "schedulers+shifts")
    }
    assert_each_account_its_own(accounts, duckdb_fetch(tmp_path / "warehouse.duckdb"))
