"""A dead provider holds a run for a bounded time (:mod:`sources.connecteam.transient`): the
client's retries stop once the provider has answered nothing but 429 and 5xx for
``max_outage`` seconds, and no step retries that (the two retry layers do not multiply)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import WFM_SYNC, cli_env

from emulator.server import BackgroundServer
from sources.connecteam import ProviderUnavailableError
from sources.connecteam.client import ConnecteamClient
from sources.connecteam.transient import Outage


class DeadProvider:
    """An ASGI app answering every request 503, counting them."""

    def __init__(self) -> None:
        self.requests = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        self.requests += 1
        body = b'{"detail": "unavailable"}'
        length = str(len(body)).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", length)]
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body})


@pytest.fixture
def dead() -> Any:
    app = DeadProvider()
    with BackgroundServer(app) as server:
        server.app = app
        yield server


def test_the_outage_clock_runs_from_the_first_failure_until_an_answer() -> None:
    clock = Outage(gap=120)
    assert clock.lasted("a", at=1000) == 0
    assert clock.failed("a", at=1000) == 0
    assert clock.failed("a", at=1100) == 100
    assert clock.failed("b", at=1100) == 0  # one clock per base URL
    assert clock.lasted("a", at=1150) == 150
    clock.answered("a")
    assert clock.lasted("a", at=1151) == 0 and clock.failed("a", at=1160) == 0
    # a failure long after the last one starts a new outage: an old one does not count
    assert clock.failed("a", at=1400) == 0
    assert clock.lasted("a", at=1500) == 100 and clock.lasted("a", at=1521) == 0


def test_a_dead_provider_stops_the_client_after_max_outage_not_after_every_attempt(dead):
    client = ConnecteamClient(
        dead.url, api_key="k", max_attempts=10_000, backoff_base=0.05, backoff_max=0.1,
        max_outage=1.0,
    )  # fmt: skip
    with client, pytest.raises(ProviderUnavailableError) as raised:
        client.get("/users/v1/users", {"limit": 5})
    error = raised.value
    assert error.status == 503 and error.transient is False and error.lasted >= 1.0
    assert "answered only 429, 5xx or nothing" in str(error)
    assert "SOURCES__CONNECTEAM__MAX_OUTAGE" in str(error)
    # at most one attempt per 0.05 s back-off over the second: nowhere near 10,000
    assert 5 <= dead.app.requests <= 40, dead.app.requests


def test_a_nightly_against_a_dead_provider_fails_once_without_a_step_retry(dead, tmp_path: Path):
    env = cli_env(dead, tmp_path / "w.duckdb")
    env.update(SOURCES__CONNECTEAM__MAX_ATTEMPTS="10000", SOURCES__CONNECTEAM__MAX_OUTAGE="2")
    done = subprocess.run([*WFM_SYNC, "sync"], env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]  # a failed run, not a setting
    assert "ProviderUnavailableError" in done.stderr.strip().splitlines()[-1], done.stderr[-2000:]
    assert "retry 1 of" not in done.stderr  # the step layer does not start the outage again
    # one outage of ~2 s at 0.02 s back-offs doubling to the client's 60 s cap: a few dozen
    # requests; every stream of every group retried in full would be thousands
    assert dead.app.requests < 200, dead.app.requests


def test_a_bad_max_outage_is_named(tmp_path: Path, dead) -> None:
    env = dict(cli_env(dead, tmp_path / "w.duckdb"), SOURCES__CONNECTEAM__MAX_OUTAGE="0")
    done = subprocess.run([*WFM_SYNC, "sync", "--streams", "users"], env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    assert "SOURCES__CONNECTEAM__MAX_OUTAGE must be seconds above 0" in done.stderr
    assert dead.app.requests == 0
