"""A first real run as a new user makes it: mistakes are named in a line or two, before any work,
with exit codes that mean one thing (0 done, 1 the run failed, 2 usage or configuration)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conftest import API_KEY, cli_env, query
from support.cli import run_cli

from sources.connecteam.client import ConnecteamClient
from sources.connecteam.errors import ConnecteamAPIError, HostUnreachableError


class Nowhere:
    """A base URL where nothing listens (the discard port on loopback)."""

    url = "http://127.0.0.1:9"


def test_version_and_short_help_everywhere(tmp_path: Path) -> None:
    env = cli_env(Nowhere(), tmp_path / "warehouse.duckdb")
    version = run_cli("--version", env=env)
    assert version.returncode == 0 and version.stdout.startswith("wfm-sync "), version.stderr
    assert version.stdout.split()[1][0].isdigit()
    for command in ([], ["sync"], ["webhooks", "fold"], ["models", "build"], ["emulator"]):
        shown = run_cli(*command, "-h", env=env)
        assert shown.returncode == 0, (command, shown.stderr)
        assert "Usage: wfm-sync" in shown.stdout, command
        words = " ".join(shown.stdout.replace("│", " ").split())
        if command:  # each command states the exit codes
            assert "Exit codes: 0 done; 1 the run failed" in words and "2 usage or" in words


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [("--streams", "userz", "'userz'"), ("--steps", "sync,modles", "'modles'")],
)
def test_an_unknown_name_exits_2_naming_the_choices_before_any_work(
    tmp_path: Path, option: str, value: str, named: str
) -> None:
    warehouse = tmp_path / "data" / "warehouse.duckdb"
    done = run_cli("sync", option, value, env=cli_env(Nowhere(), warehouse))
    assert done.returncode == 2, done.stderr
    message = " ".join(done.stderr.replace("│", " ").split())
    assert f"unknown {named}; choose from" in message and option in message
    assert "Traceback" not in done.stderr
    assert not warehouse.parent.exists()  # nothing was synced, built or published


def test_a_host_that_refuses_ends_the_run_at_once_naming_host_setting_and_cause(
    tmp_path: Path,
) -> None:
    """The client's default attempts, the flow's task retries and every stream group: the run
    still ends within 90 s (before: 10 min 54 s and an internal AttributeError)."""
    env = cli_env(Nowhere(), tmp_path / "wh.duckdb")
    del env["SOURCES__CONNECTEAM__BACKOFF_BASE"]  # the client's defaults: 8 attempts, 1 s base
    started = time.monotonic()
    done = run_cli("sync", env=env, cwd=tmp_path)
    took = time.monotonic() - started
    assert done.returncode == 2, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        "sync failed: HostUnreachableError: cannot connect to 127.0.0.1:9 "
        "(SOURCES__CONNECTEAM__BASE_URL=http://127.0.0.1:9): nothing listens there (a wrong "
        "host or port, or the service is down)"
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert took < 90, took


def test_a_tls_failure_on_the_first_request_is_named_as_such(start_emulator, tmp_path: Path):
    server = start_emulator(users=5)
    plain = server.url.replace("http://", "https://")  # TLS to a server that speaks HTTP

    class Https:
        url = plain

    done = run_cli("sync", "--streams", "users", env=cli_env(Https(), tmp_path / "w.duckdb"))
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"cannot connect to {plain.removeprefix('https://')}" in done.stderr
    assert "the TLS handshake failed" in done.stderr


def test_missing_credentials_exit_2_naming_the_setting(tmp_path: Path) -> None:
    """Once, before any work: no warehouse, pipeline state or run log is left behind."""
    env = {k: v for k, v in cli_env(Nowhere(), tmp_path / "data" / "w.duckdb").items()
           if k != "SOURCES__CONNECTEAM__API_KEY"}  # fmt: skip
    done = run_cli("sync", env=env, cwd=tmp_path)  # no .dlt/secrets.toml here
    assert done.returncode == 2, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("sync failed: ConnecteamConfigError: No Connecteam credentials: set "
                           "SOURCES__CONNECTEAM__API_KEY")  # fmt: skip
    assert done.stderr.count("No Connecteam credentials") == 1, done.stderr
    assert not (tmp_path / "data").exists()


def test_a_refused_key_exits_2(start_emulator, tmp_path: Path) -> None:
    server = start_emulator(users=5)
    done = run_cli("sync", "--streams", "users",
                   env=cli_env(server, tmp_path / "w.duckdb", key="wrong"))  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    assert "HTTP 401" in done.stderr and "wrong" not in done.stderr


def test_a_host_that_answered_once_is_retried_in_full_when_the_network_drops(start_emulator):
    """Mid-run, a failed connect is a dropped network: the client's full attempts, then an
    error naming the endpoint (a transient failure the flow's task retries)."""
    server = start_emulator(users=5)
    client = ConnecteamClient(server.url, api_key=API_KEY, max_attempts=5, backoff_base=0.01)
    with client:
        assert client.get("/users/v1/users")["data"]["users"]
        server.stop()
        with pytest.raises(ConnecteamAPIError) as caught:
            client.get("/users/v1/users")
    assert not isinstance(caught.value, HostUnreachableError)
    assert "ConnectError after 5 attempts" in str(caught.value)
    assert client.stats.retries == 4


def test_fold_with_a_malformed_inbox_url_exits_2_at_once_naming_the_variable(tmp_path: Path):
    env = dict(cli_env(Nowhere(), tmp_path / "w.duckdb"), WEBHOOKS__INBOX_URL="notaurl")
    started = time.monotonic()
    done = run_cli("webhooks", "fold", env=env)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1] == (
        "fold failed: InboxURLError: WEBHOOKS__INBOX_URL='notaurl' is not a database URL; use "
        "sqlite:///data/inbox.sqlite3 or postgresql://user:password@host:5432/database"
    )
    assert "retry" not in done.stderr and time.monotonic() - started < 30  # never retried


@pytest.mark.parametrize(
    ("variable", "value", "command"),
    [
        ("WFM_SYNC_NOW", "tomorrow", ["sync"]),
        ("SOURCES__CONNECTEAM__TIMEOUT", "soon", ["status"]),
        ("WEBHOOKS__INBOX_URL", "mysql://h/db", ["webhooks", "fold"]),
    ],
)
def test_a_wrong_setting_exits_2_naming_it_when_the_project_is_resolved(
    tmp_path: Path, variable: str, value: str, command: list[str]
) -> None:
    """The project is resolved once, before any work: a setting of the wrong kind, of any of the
    three it carries (the instant, the source's, the inbox's), is one line naming it, exit 2."""
    warehouse = tmp_path / "data" / "warehouse.duckdb"
    env = dict(cli_env(Nowhere(), warehouse), **{variable: value})
    done = run_cli(*command, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr[-2000:]
    assert variable in done.stderr and "Traceback" not in done.stderr
    assert not warehouse.parent.exists()


@pytest.mark.parametrize("inbox", ["notaurl", "sqlite:///{blocked}/inbox.sqlite3"])
def test_serve_refuses_an_unusable_inbox_before_it_says_receiving(tmp_path: Path, inbox: str):
    blocked = tmp_path / "a-file"  # a file where the inbox's folder would be
    blocked.write_text("")
    env = cli_env(Nowhere(), tmp_path / "w.duckdb")
    done = run_cli("webhooks", "serve", "--open", "--port", "9",
                   "--inbox-url", inbox.format(blocked=blocked), env=env, timeout=60)  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    assert "receiving" not in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.startswith("cannot start: --inbox-url")
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("command", [["serve"], ["deploy", "--work-pool", "pool"]])
def test_an_unreachable_prefect_api_exits_2_in_one_line(tmp_path: Path, command: list[str]):
    env = dict(cli_env(Nowhere(), tmp_path / "w.duckdb"), PREFECT_API_URL="http://127.0.0.1:9/api")
    done = run_cli(*command, env=env, timeout=120)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.strip().splitlines() == [
        f"cannot {command[0]}: PREFECT_API_URL=http://127.0.0.1:9/api does not answer "
        "(ConnectError): start the server with `prefect server start` or correct the URL (it "
        "ends in /api)"
    ]


def test_sync_and_status_from_any_directory_find_the_same_warehouse(start_emulator, tmp_path):
    """The project's home (``--project-dir`` or dlt's ``DLT_PROJECT_DIR``) holds ``.dlt/``; the
    relative warehouse path of its config resolves from there, not from the current directory."""
    server = start_emulator(users=7)
    home = tmp_path / "project"
    (home / ".dlt").mkdir(parents=True)
    # the repository's own .dlt/config.toml (the warehouse at its default, data/warehouse.duckdb)
    config = (Path(__file__).parents[2] / ".dlt" / "config.toml").read_text()
    (home / ".dlt" / "config.toml").write_text(config.replace(
        'base_url = "https://api.connecteam.com"', f'base_url = "{server.url}"'))  # fmt: skip
    (home / ".dlt" / "secrets.toml").write_text(f'[sources.connecteam]\napi_key = "{API_KEY}"\n')
    env = {k: v for k, v in cli_env(server, tmp_path / "unused.duckdb").items()
           if not k.startswith(("SOURCES__", "DESTINATION__", "DLT_PROJECT_DIR"))}  # fmt: skip
    elsewhere, cron = tmp_path / "elsewhere", tmp_path / "cron"
    elsewhere.mkdir()
    cron.mkdir()
    done = run_cli("--project-dir", str(home), "sync", "--streams", "users",
                   "--steps", "sync", env=env, cwd=elsewhere)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    warehouse = home / "data" / "warehouse.duckdb"
    assert query(warehouse, "select count(*) from connecteam.users") == [(7,)]
    assert not (elsewhere / "data").exists() and not (elsewhere / ".dlt").exists()

    shown = run_cli("status", "--json", env=dict(env, DLT_PROJECT_DIR=str(home)), cwd=cron)
    report = json.loads(shown.stdout)
    assert report["project_dir"] == str(home.resolve())
    assert report["warehouse"] == f"duckdb:{warehouse.resolve()}"
    users = [t for t in report["tables"] if t["table"] == "users"]
    assert users and users[0]["rows"] == 7


def test_verbose_shows_the_traceback_behind_the_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in cli_env(Nowhere(), tmp_path / "w.duckdb").items()
           if k != "SOURCES__CONNECTEAM__API_KEY"}  # fmt: skip
    quiet = run_cli("sync", env=env, cwd=tmp_path)
    loud = run_cli("sync", "-v", env=env, cwd=tmp_path)
    assert quiet.returncode == loud.returncode == 2
    assert "Traceback" not in quiet.stderr and "Traceback (most recent call last)" in loud.stderr
    assert loud.stderr.strip().splitlines()[-1] == quiet.stderr.strip().splitlines()[-1]


def test_a_group_whose_every_stream_failed_reports_the_streams_own_errors(
    start_emulator, tmp_path: Path
) -> None:
    """users and user_custom_field_definitions share a task; both refused (422): exit 1 naming
    each stream and the provider's answer (before: an internal AttributeError)."""
    server = start_emulator(users=5)
    server.state.options.failing_paths = {"/users/v1/users": 422, "/users/v1/custom-fields": 422}
    done = run_cli("sync", "--streams", "users,user_custom_field_definitions", "--steps", "sync",
                   env=cli_env(server, tmp_path / "w.duckdb"))  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]
    assert "sync failed for 2 stream(s):" in done.stderr
    assert "  - users: ConnecteamAPIError: GET /users/v1/users answered HTTP 422" in done.stderr
    assert (
        "  - user_custom_field_definitions: ConnecteamAPIError: GET /users/v1/custom-fields "
        "answered HTTP 422" in done.stderr
    )
    assert "AttributeError" not in done.stderr and "Traceback" not in done.stderr


def test_an_unedited_copy_of_the_example_secrets_says_no_credentials(tmp_path: Path) -> None:
    home = tmp_path / "project"
    (home / ".dlt").mkdir(parents=True)
    example = Path(__file__).parents[2] / ".dlt" / "example.secrets.toml"
    (home / ".dlt" / "secrets.toml").write_text(example.read_text())
    env = {k: v for k, v in cli_env(Nowhere(), tmp_path / "w.duckdb").items()
           if k not in ("SOURCES__CONNECTEAM__API_KEY", "DLT_PROJECT_DIR")}  # fmt: skip
    done = run_cli("--project-dir", str(home), "sync", env=env, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "No Connecteam credentials" in done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("command", [["sync"], ["models", "build"]])
def test_an_unwritable_warehouse_path_exits_2_at_once(tmp_path: Path, command: list[str]):
    blocked = tmp_path / "a-file"  # a file where the warehouse's folder would be
    blocked.write_text("")
    started = time.monotonic()
    done = run_cli(*command, env=cli_env(Nowhere(), blocked / "warehouse.duckdb"))
    assert done.returncode == 2, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert f"WarehouseConfigError: cannot create the warehouse folder {blocked}" in last
    assert "DESTINATION__DUCKDB__CREDENTIALS" in last
    assert "retry" not in done.stderr and time.monotonic() - started < 60  # never retried


def test_a_base_url_answering_html_404_everywhere_stops_at_once_and_publishes_nothing(
    tmp_path: Path,
) -> None:
    """A fresh project whose base URL names a server answering every path with an HTML 404
    page: the first group of streams fails alike, the run stops there with exit 2 naming the
    setting (before: every stream tried, the models built and an empty snapshot and report
    published, exit 1 after about 60 s), and no warehouse, snapshot or report is made (dlt
    opens the destination before the extract; the file it made is removed); with ``-v`` each
    stream's failure and traceback come first."""
    from test_cli import html_404_app

    from emulator.server import BackgroundServer

    warehouse = tmp_path / "data" / "warehouse.duckdb"
    env = cli_env(Nowhere(), warehouse)
    with BackgroundServer(html_404_app()) as wrong:
        env["SOURCES__CONNECTEAM__BASE_URL"] = wrong.url
        done = run_cli("sync", env=env, cwd=tmp_path)
        loud = run_cli("sync", "-v", env=env, cwd=tmp_path)
    # -v: each failed stream, and its traceback
    assert loud.returncode == 2, loud.stderr[-3000:]
    assert "users failed with this traceback:" in loud.stderr
    assert "Traceback (most recent call last)" in loud.stderr
    assert "  - users: ConnecteamAPIError: GET /users/v1/users answered HTTP 404" in loud.stderr
    assert done.returncode == 2, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("sync failed: every stream failed alike (ConnecteamAPIError: GET /users")
    assert "check SOURCES__CONNECTEAM__BASE_URL" in last and "not tried" in last
    assert not (tmp_path / "data" / "analytics.duckdb").exists()
    assert not (tmp_path / "data" / "report.html").exists()
    assert not warehouse.exists(), "a run that loaded nothing leaves no warehouse file"
