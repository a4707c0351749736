"""No secret reaches the disk, and what the project writes is its user's alone.

Each command runs as a user runs it (the installed ``wfm-sync``, a fresh project home,
``DLT_DATA_DIR`` and ``PREFECT_HOME``) with canary secrets: the API key (the emulator's), an
OAuth client secret beside it, the webhook token and signing secret, the inbox's PostgreSQL
password and the PostgreSQL warehouse's password. Then every file under the three folders is
scanned for every canary: 0 hits (before: the inbox password, in clear, three times in
``data/pipelines/webhooks/trace.pickle``, mode 0644). Every file is 0600 and every folder 0700.
The demo (run once per suite, :func:`conftest.small_demo`) is scanned for its API key."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path

import httpx
import orjson
import pytest
from conftest import NOW, WFM_SYNC, DemoRun
from support.servers import free_port

from emulator.webhooks import signature_headers
from receiver import PATH

pytestmark = pytest.mark.slow

API_KEY = "canary-apikey-7f3e9a"
CLIENT_SECRET = "canary-oauth-2d8b41"
TOKEN = "canary-token-9b1e77"
SIGNING_SECRET = "canary-signing-c0ffee12"
INBOX_PASSWORD = "canary-inbox-51c2d8"
WAREHOUSE_PASSWORD = "canary-pgwh-e4a903"
CANARIES = (API_KEY, CLIENT_SECRET, TOKEN, SIGNING_SECRET, INBOX_PASSWORD, WAREHOUSE_PASSWORD)


def hits(folders: list[Path], canaries: tuple[str, ...]) -> list[str]:
    """``path: canary`` for every file under ``folders`` holding a canary."""
    found = []
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file() and not path.is_symlink():
                data = path.read_bytes()
                found += [f"{path}: {c}" for c in canaries if c.encode() in data]
    return found


def shared(folders: list[Path]) -> list[str]:
    """Files and folders under ``folders`` (themselves included) that group or others may use."""
    every = [p for folder in folders if folder.exists()
             for p in [folder, *folder.rglob("*")] if not p.is_symlink()]  # fmt: skip
    return [f"{p} {oct(p.stat().st_mode & 0o777)}" for p in every if p.stat().st_mode & 0o077]


def serve_one_event(env: dict[str, str], cwd: Path) -> None:
    """``wfm-sync webhooks serve`` storing one signed delivery, then stopped."""
    port = free_port()
    command = [*WFM_SYNC, "webhooks", "serve", "--port", str(port)]
    process = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        body = orjson.dumps({"requestId": "canary-1", "eventType": "clock_in",
                             "eventTimestamp": NOW, "userId": 1})  # fmt: skip
        signed = signature_headers(SIGNING_SECRET, "msg-1", int(time.time()), body)
        headers = {"x-webhook-token": TOKEN, **signed}
        answer = httpx.post(url + PATH, content=body, headers=headers, timeout=30)
        assert answer.status_code == 200, answer.text
    finally:
        process.terminate()
        process.wait(30)


def test_no_command_writes_a_secret_and_every_file_is_private(
    start_emulator, postgres, tmp_path: Path
):
    emulator = start_emulator(users=10, forms=1, schedulers=1, shifts=10, api_key=API_KEY)
    home, dlt_data, prefect = tmp_path / "project", tmp_path / "dlt-data", tmp_path / "prefect"
    home.mkdir()
    server = postgres.rsplit("@", 1)[1]  # the test server trusts 127.0.0.1: any password goes
    ours = ("SOURCES__", "DESTINATION__", "WEBHOOKS__", "WFM_SYNC_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
    env.update(
        SOURCES__CONNECTEAM__BASE_URL=emulator.url, SOURCES__CONNECTEAM__API_KEY=API_KEY,
        SOURCES__CONNECTEAM__CLIENT_ID="canary-client",
        SOURCES__CONNECTEAM__CLIENT_SECRET=CLIENT_SECRET,
        WEBHOOKS__TOKEN=TOKEN, WEBHOOKS__SIGNING_SECRET=SIGNING_SECRET,
        WEBHOOKS__INBOX_URL=f"postgresql://wfm:{INBOX_PASSWORD}@{server}",
        DLT_DATA_DIR=str(dlt_data), PREFECT_HOME=str(prefect), WFM_SYNC_NOW=str(NOW),
        RUNTIME__DLTHUB_TELEMETRY="false",
    )  # fmt: skip

    def run(*args: str, ok: tuple[int, ...] = (0,), **more: str) -> None:
        done = subprocess.run([*WFM_SYNC, *args], env={**env, **more}, cwd=home,
                              capture_output=True, text=True, timeout=900)  # fmt: skip
        assert done.returncode in ok, (args, done.stderr[-3000:])

    run("sync", "--streams", "users,schedulers", "--steps", "sync,fold")
    serve_one_event(env, home)
    run("webhooks", "fold")
    run("models", "build", "--select", "stg_users")
    run("models", "publish")
    run("status", ok=(0, 1))  # 1: it lists problems (the streams not synced here)
    run("documents", "status")
    warehouse_url = f"postgresql://wfm:{WAREHOUSE_PASSWORD}@{server}"
    run("sync", "--streams", "users", "--steps", "sync", WFM_SYNC_DESTINATION="postgres",
        DESTINATION__POSTGRES__CREDENTIALS=warehouse_url)  # fmt: skip

    folders = [home, dlt_data, prefect]
    assert hits(folders, CANARIES) == []
    assert (home / "data" / "warehouse.duckdb").exists()
    assert shared([home / "data", dlt_data, prefect]) == []


def test_the_demo_writes_no_secret_and_only_private_files(small_demo: DemoRun):
    """The demo's own API key (its emulator's) is in none of its files, which are private."""
    folders = [small_demo.warehouse.parent, Path(small_demo.env["PREFECT_HOME"])]
    assert hits(folders, ("demo-key",)) == []
    assert shared([small_demo.warehouse.parent]) == []
    assert stat.S_IMODE(small_demo.warehouse.stat().st_mode) == 0o600
