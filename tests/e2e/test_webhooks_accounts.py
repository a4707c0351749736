"""Each account's webhooks on its own path and token (issue 46): the installed
``wfm-sync webhooks serve`` takes the ``default`` account's deliveries at
``/webhooks/connecteam`` and a named account's at ``/webhooks/connecteam/<name>``, each checked
against its own token; the same event delivered for two accounts is stored twice, once for each;
``wfm-sync webhooks fold`` loads every event with its account."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from conftest import API_KEY
from support.accounts import accounts_env, duckdb_fetch
from support.cli import WFM_SYNC, run_cli
from support.servers import free_port
from support.webhooks import deliver

from emulator import EmulatorServer
from emulator.webhooks import build_burst

TOKENS = {"default": "tok-default", "north": "tok-north", "south": "tok-south"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """The receiver as a user starts it, with the ``default`` account's token and two named
    accounts' (``WEBHOOKS__ACCOUNTS__<NAME>__TOKEN``); its base URL and environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WEBHOOKS__", "DESTINATION__"))}
    env.update(
        WEBHOOKS__TOKEN=TOKENS["default"],
        WEBHOOKS__ACCOUNTS__NORTH__TOKEN=TOKENS["north"],
        WEBHOOKS__ACCOUNTS__SOUTH__TOKEN=TOKENS["south"],
        WEBHOOKS__INBOX_URL=f"sqlite:///{tmp_path / 'inbox.sqlite3'}",
        DESTINATION__DUCKDB__CREDENTIALS=str(tmp_path / "warehouse.duckdb"),
    )
    port = free_port()
    process = subprocess.Popen(
        [*WFM_SYNC, "webhooks", "serve", "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert process.poll() is None, process.stderr.read().decode()[-3000:]
            time.sleep(0.1)
        yield base, env
    finally:
        process.terminate()
        process.wait(30)


def test_each_account_delivers_on_its_own_path_and_the_fold_keeps_the_account(
    served: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    base, env = served
    bodies = [body for body, request_id, _ in build_burst(6, seed=3) if request_id]
    paths = {"default": "/webhooks/connecteam", "north": "/webhooks/connecteam/north",
             "south": "/webhooks/connecteam/south"}  # fmt: skip
    keys: dict[str, list[str]] = {}
    for account, path in paths.items():  # the same events, for each account
        answers = [deliver(base + path, body, TOKENS[account]) for body in bodies]
        assert [a.status_code for a in answers] == [200] * len(bodies), answers[0].text
        keys[account] = [a.json()["eventKey"] for a in answers]
    assert all(key.startswith("north:") for key in keys["north"])
    assert [k.removeprefix("south:") for k in keys["south"]] == keys["default"]
    # another account's token, and an account the receiver does not know, are refused
    assert deliver(base + paths["north"], bodies[0], TOKENS["south"]).status_code == 401
    assert deliver(base + "/webhooks/connecteam/west", bodies[0], "x").status_code == 404
    # a re-delivery to its own account's path is stored once
    again = deliver(base + paths["south"], bodies[0], TOKENS["south"])
    assert again.json() == {"status": "already stored", "eventKey": keys["south"][0]}

    folded = run_cli("webhooks", "fold", env=env)
    assert folded.returncode == 0, folded.stderr[-3000:]
    fetch = duckdb_fetch(tmp_path / "warehouse.duckdb")
    stored = dict(fetch("select account, count(*) from webhooks.events group by account"))
    assert stored == {"default": len(bodies), "north": len(bodies), "south": len(bodies)}
    ((mixed,),) = fetch(
        "select count(*) from webhooks.events where (account = 'default') = "
        "(event_key like 'north:%' or event_key like 'south:%')"
    )
    assert mixed == 0


def test_subscribe_registers_a_named_account_s_url_with_its_own_token_at_its_own_account(
    start_emulator: Callable[..., EmulatorServer], tmp_path: Path
) -> None:
    default, south = start_emulator(seed=1), start_emulator(seed=2, api_key="key-south")
    env = dict(
        accounts_env({"south": south}, tmp_path),
        SOURCES__CONNECTEAM__BASE_URL=default.url,
        SOURCES__CONNECTEAM__API_KEY=API_KEY,
        WEBHOOKS__TOKEN=TOKENS["default"],
        COLUMNS="200",
    )
    url = "http://127.0.0.1:9/webhooks/connecteam/south"
    refused = run_cli("webhooks", "subscribe", "--account", "south", "--url", url, env=env)
    assert refused.returncode == 2
    assert "WEBHOOKS__ACCOUNTS__SOUTH__TOKEN" in refused.stderr
    env["WEBHOOKS__ACCOUNTS__SOUTH__TOKEN"] = TOKENS["south"]
    done = run_cli("webhooks", "subscribe", "--account", "south", "--url", url, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    urls = {hook["url"] for hook in south.state.webhook_store.webhooks.values()}
    assert urls == {f"{url}?token={TOKENS['south']}"}
    assert not default.state.webhook_store.webhooks  # the default account's are its own
    unknown = run_cli("webhooks", "list", "--account", "west", env=env)
    assert unknown.returncode == 2, unknown.stderr
    assert "'west'" in unknown.stderr and "default, south" in unknown.stderr
