"""A plain ``http://`` base URL to another machine would send the API key in clear: every command
that talks to the provider refuses it before any request (exit 2, one line naming the setting and
``--allow-insecure``); loopback hosts (the emulator) stay allowed, and ``--allow-insecure`` lets
any host through."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import API_KEY, cli_env, query
from support.cli import run_cli

from sources.connecteam import ConnecteamConfigError, connecteam_source
from sources.connecteam.config import (
    ConnecteamClientConfiguration,
    is_loopback_host,
    require_secure_base_url,
)

REMOTE = "http://example.invalid"
"""Not loopback; ``.invalid`` never resolves (RFC 6761), and nothing may even try to."""

REFUSED = (
    f"SOURCES__CONNECTEAM__BASE_URL={REMOTE} is plain http:// to another machine: the "
    "credentials would cross the network unencrypted; use https://, or pass --allow-insecure "
    "if this network is trusted"
)


class Remote:
    url = REMOTE


def test_sync_refuses_plain_http_to_another_host_before_any_work(tmp_path: Path) -> None:
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    done = run_cli("sync", env=cli_env(Remote(), warehouse), cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines() == [f"sync failed: ConnecteamConfigError: {REFUSED}"]
    assert not warehouse.parent.exists()  # nothing opened, synced, built or published


@pytest.mark.parametrize(
    ("command", "what"),
    [
        (["webhooks", "list"], "list"),
        (["webhooks", "unsubscribe", "--dry-run"], "unsubscribe"),
        (["webhooks", "subscribe", "--url", "https://hooks.invalid/c", "--dry-run"], "subscribe"),
        (
            ["documents", "put-entry", "--user-id", "1", "--document-id", "2", "--file", "a.pdf"],
            "documents",
        ),
    ],
)
def test_every_command_that_calls_the_provider_refuses_it(
    tmp_path: Path, command: list[str], what: str
) -> None:
    env = dict(cli_env(Remote(), tmp_path / "wh" / "warehouse.duckdb"), WEBHOOKS__TOKEN="t" * 32)
    (tmp_path / "a.pdf").write_bytes(b"%PDF-1.4\n")
    done = run_cli(*command, env=env, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last == f"{what} failed: ConnecteamConfigError: {REFUSED}"
    assert API_KEY not in done.stderr + done.stdout


def test_loopback_hosts_pass_and_allow_insecure_lets_any_host_pass() -> None:
    allowed = [
        "http://127.0.0.1:8000",
        "http://127.1.2.3",
        "http://[::1]:9",
        "http://localhost",
        "http://LOCALHOST.:80/api",
        "http://[::ffff:127.0.0.1]",
        "https://example.invalid",
    ]
    for url in allowed:
        require_secure_base_url(url)  # no error
    refused = [
        REMOTE,
        "http://10.0.0.1",
        "http://0.0.0.0:80",
        "http://localhost.example",
        "http://[::2]",
        "http://user:pw@example.invalid:8080/x",
    ]
    for url in refused:
        with pytest.raises(ConnecteamConfigError) as error:
            require_secure_base_url(url)
        assert "--allow-insecure" in str(error.value) and "pw" not in str(error.value)
        require_secure_base_url(url, allow_insecure=True)  # no error
    assert is_loopback_host("127.0.0.1") and not is_loopback_host("127.0.0.1.example")


def test_the_flag_reaches_the_client_that_the_sync_and_other_commands_build() -> None:
    """Building a client or the source makes no request: with the flag both are built for a
    remote plain-http host; without it both refuse."""
    config = ConnecteamClientConfiguration(api_key=API_KEY, base_url=REMOTE)
    with pytest.raises(ConnecteamConfigError, match="--allow-insecure"):
        config.client()
    with config.client(allow_insecure=True) as client:
        assert client.base_url == REMOTE
    with pytest.raises(ConnecteamConfigError, match="--allow-insecure"):
        connecteam_source(0.0, api_key=API_KEY, base_url=REMOTE)
    source = connecteam_source(0.0, api_key=API_KEY, base_url=REMOTE, allow_insecure=True)
    assert "users" in source.resources


def test_the_emulator_on_loopback_needs_no_flag_and_the_flag_changes_nothing_there(
    start_emulator, tmp_path: Path
) -> None:
    server = start_emulator(users=7)
    for extra in ([], ["--allow-insecure"]):
        warehouse = tmp_path / f"wh{len(extra)}" / "warehouse.duckdb"
        done = run_cli("sync", "--streams", "users", "--steps", "sync", *extra,
                       env=cli_env(server, warehouse), cwd=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        assert query(warehouse, "select count(*) from connecteam.users")[0][0] == 7
    listed = run_cli("webhooks", "list", "--allow-insecure",
                     env=cli_env(server, tmp_path / "w.duckdb"), cwd=tmp_path)  # fmt: skip
    assert listed.returncode == 0, listed.stderr[-2000:]


def test_served_and_deployed_nightly_runs_carry_the_flag_as_a_flow_parameter() -> None:
    from flows.deployments import Schedules, _definitions
    from flows.nightly import nightly_sync

    for allow, expected in ((False, {}), (True, {"source_options": {"allow_insecure": True}})):
        options = dict(_definitions(Schedules(), allow_insecure=allow))[nightly_sync]
        assert options["parameters"] == expected
