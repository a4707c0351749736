"""``wfm-sync`` as a user runs it: the console script in a subprocess, the Prefect flow inside."""

from __future__ import annotations

import os
import re
import subprocess
from typing import Any

from conftest import WFM_SYNC, assert_keys_unique, cli_env, query
from support.cli import run_cli

from emulator.server import BackgroundServer


def test_sync_runs_the_flow_and_prints_rows_requests_and_time(start_emulator, tmp_path):
    server = start_emulator(users=620, forms=3, schedulers=2, shifts=900)
    warehouse = tmp_path / "cli" / "warehouse.duckdb"
    env = cli_env(server, warehouse)

    first = run_cli("sync", env=env)
    assert first.returncode == 0, first.stderr[-3000:]
    out = first.stdout
    for table, rows in (("users", "620"), ("forms", "3"), ("schedulers", "2"), ("shifts", "900")):
        assert re.search(rf"{table}\s+\S+\s+{rows}\b", out), out
    assert re.search(r"requests: \d+", out) and re.search(r"time taken: [\d.]+ s", out)
    assert "flow nightly_sync: running without a Prefect server" in first.stderr
    # not on a terminal: progress as plain log lines, one per stream at its end
    assert re.search(r"sources\.connecteam: users: 620 rows in 2 pages", first.stderr)
    assert "\x1b[" not in first.stderr  # no terminal control sequences in logs
    assert query(warehouse, "select count(*) from connecteam.users")[0][0] == 620
    assert_keys_unique(warehouse)

    second = run_cli("sync", env=env)
    assert second.returncode == 0, second.stderr[-3000:]
    assert re.search(r"users\s+\S+\s+0\b", second.stdout), second.stdout

    # the base URL now names a server answering every path with an HTML 404 page: the run
    # stops after the first group of streams, exit 2 naming the setting, and nothing the good
    # runs published (snapshot, Parquet marts, report) is rewritten
    published = sorted(p for p in warehouse.parent.rglob("*")
                       if p.is_file() and not p.name.endswith((".lock", ".jsonl")))  # fmt: skip
    assert {p.name for p in published} >= {"analytics.duckdb", "report.html"}
    before = {p: p.stat().st_mtime_ns for p in published if "pipelines" not in p.parts}
    with BackgroundServer(html_404_app()) as wrong:
        third = run_cli("sync", env={**env, "SOURCES__CONNECTEAM__BASE_URL": wrong.url})
    assert third.returncode == 2, third.stderr[-3000:]
    last = third.stderr.strip().splitlines()[-1]
    assert "every stream failed alike" in last and "check SOURCES__CONNECTEAM__BASE_URL" in last
    assert "nothing was loaded" in last and "Traceback" not in third.stderr
    assert {p: p.stat().st_mtime_ns for p in before} == before


def html_404_app() -> Any:
    """An ASGI app answering every path with an HTML 404 page (a wrong host, a proxy's page)."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    def page(request: Any) -> HTMLResponse:
        return HTMLResponse("<!DOCTYPE html><html><body>Not here</body></html>", status_code=404)

    return Starlette(routes=[Route("/{path:path}", page, methods=["GET", "POST"])])


def test_wrong_key_exits_non_zero_with_a_clear_message_without_the_key(start_emulator, tmp_path):
    server = start_emulator(users=5)
    secret = "ct-live-9f8e7d6c5b4a-SECRET"
    env = cli_env(server, tmp_path / "w" / "warehouse.duckdb", key=secret)
    result = run_cli("sync", env=env)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "sync failed" in output
    assert re.search(r"GET /users/v1/\S+ answered HTTP 401", output)  # names the endpoint
    assert "SOURCES__CONNECTEAM__API_KEY" in output  # says what to fix
    assert secret not in output


def test_on_a_terminal_sync_shows_live_progress_per_stream(start_emulator, tmp_path):
    import os
    import pty

    server = start_emulator(users=620, forms=3, schedulers=2, shifts=900)
    env = dict(cli_env(server, tmp_path / "tty" / "warehouse.duckdb"), TERM="xterm",
               COLUMNS="160")  # fmt: skip
    leader, follower = pty.openpty()
    process = subprocess.Popen([*WFM_SYNC, "sync", "--steps", "sync"], env=env,
                               stdout=follower, stderr=follower, stdin=follower)  # fmt: skip
    os.close(follower)
    output = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        output += chunk
    assert process.wait(240) == 0, output[-3000:]
    text = output.decode(errors="replace")
    assert "\x1b[" in text  # drawn live on the terminal
    assert re.search(r"users\s+\S*\s*2 pages, 620 rows", text), text[-3000:]
    assert re.search(r"shifts\[\d+\]", text)


def test_a_malformed_setting_exits_2_with_one_line_naming_it(tmp_path):
    """A person's typo in a ``WFM_SYNC_*`` variable: exit 2 (configuration), one line naming the
    variable, its value and what is wrong; no pydantic report."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFM_SYNC_")}
    env.update(
        DESTINATION__DUCKDB__CREDENTIALS=str(tmp_path / "warehouse.duckdb"),
        WFM_SYNC_CURRENCY="euro",
        WFM_SYNC_WRITER_TIMEOUT="an hour",
    )
    done = run_cli("models", "build", "--no-publish", env=env, timeout=300)
    assert done.returncode == 2, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if "failed" in x]
    assert "WFM_SYNC_CURRENCY='euro' is not an ISO 4217 code" in line
    assert "WFM_SYNC_WRITER_TIMEOUT='an hour'" in line
    assert "pydantic" not in done.stderr
