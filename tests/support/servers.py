"""Real servers for the scale-out and kill tests: the webhook receiver (``wfm-sync webhooks serve``,
package ``receiver``), PostgreSQL and a Prefect server, on 127.0.0.1.

Each is started by the test setup from what ``.ci/run`` installs (Debian's ``postgresql``
package; Prefect from PyPI) and stopped at teardown. Nothing here is mocked.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_receiver(port: int, inbox_url: str, token: str) -> subprocess.Popen[bytes]:
    """``wfm-sync webhooks serve`` on ``port`` with ``inbox_url``, once it answers /healthz."""
    from conftest import WFM_SYNC

    env = dict(os.environ, WEBHOOKS__TOKEN=token, WEBHOOKS__INBOX_URL=inbox_url)
    process = subprocess.Popen([*WFM_SYNC, "webhooks", "serve", "--port", str(port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    stderr = process.stderr.read()[-2000:] if process.stderr else b""
    raise AssertionError(f"receiver did not start: {stderr!r}")


def _postgres_bin() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not candidates:
        raise RuntimeError(
            "PostgreSQL server binaries (pg_ctl, initdb) not found: install Debian's "
            "`postgresql` package (.ci/run does)"
        )
    return Path(candidates[-1]).parent


@contextmanager
def postgres_server() -> Iterator[str]:
    """A throw-away PostgreSQL cluster; yields ``postgresql://wfm:wfm-test@127.0.0.1:<port>/wfm``.

    As root, the server runs as the ``postgres`` system user (PostgreSQL refuses root).
    """
    binaries = _postgres_bin()
    root = Path(tempfile.mkdtemp(prefix="wfm-pg-"))
    root.chmod(0o755)
    data, sockets = root / "data", root / "sockets"
    data.mkdir()
    sockets.mkdir()
    as_user: list[str] = []
    if os.geteuid() == 0:
        shutil.chown(data, "postgres")
        shutil.chown(sockets, "postgres")
        shutil.chown(root, "postgres")
        as_user = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    subprocess.run([*as_user, str(binaries / "initdb"), "-D", str(data), "-U", "wfm",
                    "--auth=trust", "-E", "UTF8", "--no-sync"],
                   check=True, capture_output=True)  # fmt: skip
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run([*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-o", options,
                    "-l", str(root / "server.log"), "-w", "start"],
                   check=True, capture_output=True)  # fmt: skip
    try:
        import psycopg2

        connection = psycopg2.connect(host="127.0.0.1", port=port, user="wfm", dbname="postgres")
        connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute("create database wfm")
            cursor.execute("alter user wfm password 'wfm-test'")  # dlt's credentials need one
        connection.close()
        yield f"postgresql://wfm:wfm-test@127.0.0.1:{port}/wfm"
    finally:
        subprocess.run([*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate",
                        "stop"], capture_output=True)  # fmt: skip
        shutil.rmtree(root, ignore_errors=True)


def fresh_database(url: str, name: str) -> str:
    """A new empty database on the server of ``url`` (a :func:`postgres_server` URL, or one
    of its databases'); returns its URL, with the same user and password. The database is
    ``name``, or ``name_2``, ``name_3``, ... when the server already has one so named (modules
    sharing a session's server pick names alike)."""
    import psycopg2
    from psycopg2 import errors

    connection = psycopg2.connect(url)
    connection.autocommit = True
    try:
        for number in itertools.count(1):
            taken = name if number == 1 else f"{name}_{number}"
            try:
                with connection.cursor() as cursor:
                    cursor.execute(f"create database {taken}")
            except errors.DuplicateDatabase:
                continue
            return url.rsplit("/", 1)[0] + f"/{taken}"
    finally:
        connection.close()
    raise AssertionError("unreachable")


@contextmanager
def prefect_server(home: Path) -> Iterator[str]:
    """``prefect server start`` on a free port with its own ``PREFECT_HOME`` (SQLite);
    yields the API URL."""
    port = free_port()
    env = dict(os.environ, PREFECT_HOME=str(home), PREFECT_SERVER_ANALYTICS_ENABLED="false",
               PREFECT_SERVER_UI_ENABLED="false")  # fmt: skip
    env.pop("PREFECT_API_URL", None)
    prefect = str(Path(sys.executable).with_name("prefect"))
    home.mkdir(parents=True, exist_ok=True)
    log = (home / "server.log").open("wb")
    process = subprocess.Popen(
        [prefect, "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                tail = (home / "server.log").read_text()[-3000:]
                raise RuntimeError(f"prefect server exited: {tail}")
            try:
                if httpx.get(url + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("prefect server did not start in 180 s")
            time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@contextmanager
def small_disk(megabytes: int) -> Iterator[Path]:
    """A tmpfs of ``megabytes`` MiB mounted on a fresh folder (a disk that fills for real);
    the test is skipped where this machine does not allow mounting one (not root, no
    ``CAP_SYS_ADMIN``)."""
    import pytest

    folder = Path(tempfile.mkdtemp(prefix="wfm-disk-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m", "tmpfs",
                              str(folder)], capture_output=True, text=True)  # fmt: skip
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def fill(disk: Path, leave_bytes: int) -> Path:
    """Write a file on ``disk`` until only about ``leave_bytes`` are free; returns it."""
    filler = disk / "filler"
    free = shutil.disk_usage(disk).free
    with filler.open("ab") as out:
        out.write(b"\0" * max(0, free - leave_bytes))
    return filler
