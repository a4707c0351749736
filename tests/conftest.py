"""Shared fixtures: the emulator as a real HTTP server on 127.0.0.1, and a real DuckDB warehouse."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import settings
from support.cli import WFM_SYNC

from core.project import Project
from emulator import EmulatorConfig, EmulatorServer, ServerOptions
from sources.connecteam.registry import STREAMS

ROOT = Path(__file__).resolve().parent.parent
"""The repository's root."""
ANCHOR = 1_795_132_800  # 2026-11-20 00:00 UTC: pins generated data across test runs
NOW = ANCHOR + 12 * 3600
"""The project's "now" in every test (``WFM_SYNC_NOW``): the sync's windows and the emulator's
data are placed around the same instant, whatever the real date."""
DBT_TARGETS = Path(__file__).resolve().parent.parent / "sql" / "target" / "tests"
"""dbt's artifacts of the suite's runs, a folder per worker (kept between runs for dbt's parse
cache)."""
MODELS = len(list((Path(__file__).resolve().parent.parent / "sql" / "models").rglob("*.sql")))
"""How many models the dbt project has: one per SQL file under ``sql/models/``."""
SPEC_DIR = Path(__file__).resolve().parent.parent / "sources" / "connecteam" / "spec"
"""The provider's reference (spec, interface description, notes): the product's data folder."""
SPEC_FILE = SPEC_DIR / "connecteam-openapi.json"
"""The provider's OpenAPI spec."""
API_KEY = "test-key-5f1c9e"
CORE = tuple(STREAMS)[:5]
"""The streams of the first issue (the registry's first five: users, forms, schedulers, shifts,
user documents); tests of them sync only these."""
TABLE_KEYS = {name: ", ".join(STREAMS[name].key) for name in CORE}
"""Each core table's primary key column(s), as SQL (from the registry)."""


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's own dlt or Prefect configuration or data."""
    for key in list(os.environ):
        if key.startswith(("SOURCES__", "DESTINATION__", "WFM_SYNC_", "WEBHOOKS__")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("WEBHOOKS__INBOX_URL", f"sqlite:///{tmp_path / 'default-inbox.sqlite3'}")
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect"))
    monkeypatch.setenv("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
    monkeypatch.setenv("SOURCES__CONNECTEAM__BACKOFF_BASE", "0.02")
    monkeypatch.setenv("WFM_SYNC_NOW", str(NOW))
    # dbt rewrites its manifest and parse cache on every run: one folder per pytest-xdist worker
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    monkeypatch.setenv("WFM_SYNC_DBT_TARGET_DIR", str(DBT_TARGETS / worker))


@pytest.fixture
def start_emulator() -> Iterator[Callable[..., EmulatorServer]]:
    """Start emulators: ``start_emulator(users=..., minute_limit=...)``; all stop at teardown.

    Keyword arguments go to :class:`EmulatorConfig` or :class:`ServerOptions` by name.
    """
    running: list[EmulatorServer] = []
    config_fields = set(EmulatorConfig.__dataclass_fields__)

    def start(**kwargs: Any) -> EmulatorServer:
        config_args = {"anchor": ANCHOR, **{k: v for k, v in kwargs.items() if k in config_fields}}
        option_args = {"api_key": API_KEY, "minute_limit": 100_000, "day_limit": 1_000_000}
        option_args.update({k: v for k, v in kwargs.items() if k not in config_fields})
        server = EmulatorServer(EmulatorConfig(**config_args), ServerOptions(**option_args))
        running.append(server.start())
        return server

    yield start
    for server in running:
        server.stop()


@pytest.fixture(scope="module")
def emulator_url() -> Iterator[str]:
    """A small emulator (30 users, 2 forms, 2 schedulers, 50 shifts; budgets no test can spend)
    on 127.0.0.1, shared by a module's tests (the Schemathesis runs over the spec)."""
    config = EmulatorConfig(users=30, forms=2, schedulers=2, shifts=50)
    options = ServerOptions(api_key=API_KEY, minute_limit=10**7, day_limit=10**8)
    with EmulatorServer(config, options) as server:
        yield server.url


@pytest.fixture
def warehouse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A DuckDB warehouse file of this test, set as ``DESTINATION__DUCKDB__CREDENTIALS``."""
    path = tmp_path / "wh" / "warehouse.duckdb"
    monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(path))
    return path


def point_at(monkeypatch: pytest.MonkeyPatch, server: EmulatorServer, key: str = API_KEY) -> None:
    """Configure the source for ``server`` through the environment, as a user would."""
    monkeypatch.setenv("SOURCES__CONNECTEAM__BASE_URL", server.url)
    monkeypatch.setenv("SOURCES__CONNECTEAM__API_KEY", key)


def account_project(
    warehouse: Path, base_url: str, api_key: str, inbox_url: str | None = None
) -> Project:
    """A project of its own: the warehouse ``warehouse`` with every file beside it, the account
    at ``base_url`` with ``api_key``, ``now`` :data:`NOW`, and nothing of the environment."""
    from pydantic import SecretStr

    from core.paths import paths_beside
    from core.project import SourceConfig, WebhooksConfig
    from core.settings import Settings

    inbox = inbox_url or f"sqlite:///{warehouse.parent / 'inbox.sqlite3'}"
    return Project(
        settings=Settings(now=str(NOW)),
        paths=paths_beside(warehouse),
        now=float(NOW),
        source=SourceConfig.account(base_url, api_key),
        webhooks=WebhooksConfig(inbox_url=SecretStr(inbox)),
    )


def offline_project(warehouse: Path) -> Project:
    """:func:`account_project` of ``warehouse`` for work that never asks the account (dbt,
    publish, status): its base URL is a closed port on 127.0.0.1."""
    return account_project(warehouse, "http://127.0.0.1:9", "never-used")


def query(path: Path, sql: str) -> list[tuple[Any, ...]]:
    """Run ``sql`` on the warehouse file read-only."""
    with duckdb.connect(str(path), read_only=True) as con:
        return con.sql(sql).fetchall()


def assert_keys_unique(path: Path) -> None:
    """``count(*) = count(distinct key)`` in every table."""
    for table, key in TABLE_KEYS.items():
        ((total, distinct),) = query(
            path, f"select count(*), count(distinct ({key})) from connecteam.{table}"
        )
        assert total == distinct, f"{table}: {total} rows but {distinct} distinct keys"


def cli_env(server: EmulatorServer, warehouse: Path, key: str = API_KEY) -> dict[str, str]:
    """Environment for running ``wfm-sync`` as a subprocess against ``server``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOURCES__", "DESTINATION__"))}
    env.update(
        SOURCES__CONNECTEAM__BASE_URL=server.url,
        SOURCES__CONNECTEAM__API_KEY=key,
        SOURCES__CONNECTEAM__BACKOFF_BASE="0.02",
        DESTINATION__DUCKDB__CREDENTIALS=str(warehouse),
    )
    return env


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[str]:
    """One throw-away PostgreSQL server per test session (per pytest-xdist worker:
    :func:`servers.postgres_server`); its URL, ``postgresql://wfm:wfm-test@127.0.0.1:<port>/wfm``.
    Tests take :func:`postgres`, a database of their module's own."""
    from support.servers import postgres_server

    with postgres_server() as url:
        yield url


@pytest.fixture(scope="module")
def postgres(postgres_cluster: str, request: pytest.FixtureRequest) -> str:
    """A fresh, empty database on the session's PostgreSQL server for the test module
    (:func:`servers.fresh_database`, named after the module); its URL. Further databases of
    the module's: ``fresh_database(postgres, name)``."""
    from support.servers import fresh_database

    return fresh_database(postgres_cluster, request.module.__name__.rsplit(".", 1)[-1])


@dataclass(frozen=True)
class DemoRun:
    """One ``wfm-sync demo`` run of :func:`small_demo`.

    Attributes:
        warehouse: The demo's DuckDB warehouse; the snapshot, run log and report are beside it.
        stdout: What the demo printed.
        stderr: Its log.
        env: The environment it ran with (for later ``wfm-sync`` calls on the same files).
    """

    warehouse: Path
    stdout: str
    stderr: str
    env: dict[str, str]

    @property
    def snapshot(self) -> Path:
        return self.warehouse.parent / "analytics.duckdb"


@pytest.fixture(scope="session")
def small_demo(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """``wfm-sync demo`` at 400 users and 3,000 shift rows, run once per test run for the tests
    that read it (tests/e2e/test_demo.py, tests/e2e/test_dashboard.py, ...) by the first
    pytest-xdist worker to ask (:func:`support.shared.once_per_run`)."""
    from support.shared import once_per_run

    return once_per_run(tmp_path_factory, "small-demo", _run_small_demo)


def _run_small_demo(base: Path) -> DemoRun:
    """The demo into ``base``, in the environment :func:`_isolated_env` gives a test, with the
    project's clock at :data:`NOW` and a dbt target folder of its own."""
    import subprocess

    warehouse = base / "demo" / "warehouse.duckdb"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SOURCES__", "DESTINATION__", "WFM_SYNC_", "WEBHOOKS__"))
    }
    env.update(
        PREFECT_HOME=str(base / "prefect"),
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        RUNTIME__DLTHUB_TELEMETRY="false",
        WFM_SYNC_NOW=str(NOW),
        WFM_SYNC_DBT_TARGET_DIR=str(base / "dbt-target"),
        WEBHOOKS__INBOX_URL=f"sqlite:///{base / 'default-inbox.sqlite3'}",
    )
    command = [*WFM_SYNC, "demo", "--users", "400", "--shifts", "3000"]
    result = subprocess.run(
        [*command, "--webhook-events", "300", "--warehouse", str(warehouse)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,  # a busy 2-core machine: the demo ran 4.5 min beside the suite
    )
    assert result.returncode == 0, result.stderr[-3000:]
    env["DESTINATION__DUCKDB__CREDENTIALS"] = str(warehouse)
    return DemoRun(warehouse, result.stdout, result.stderr, env)


# Hypothesis's `thorough` profile (`pytest --hypothesis-profile thorough`): the long runs of the
# property tests that read it (test_incremental_properties.py), random and many: 500 examples,
# or WFM_THOROUGH_EXAMPLES (a long run in parts, each with its own `--hypothesis-seed`).
settings.register_profile(
    "thorough", max_examples=int(os.environ.get("WFM_THOROUGH_EXAMPLES", "500")), deadline=None
)


def profile_examples(suite: int) -> int:
    """Examples of a property test: the ``thorough`` profile's when it is loaded, else
    ``suite`` (what ``make test`` can afford)."""
    thorough = settings.get_profile("thorough")
    return thorough.max_examples if settings.default == thorough else suite
