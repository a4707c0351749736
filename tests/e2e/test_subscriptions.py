"""``wfm-sync webhooks subscribe | list | unsubscribe`` against the emulator's webhook settings API
(``/settings/v1/webhooks``), run as the installed command in a subprocess; and the emulator's
delivery of the changes made with ``mutate`` to the subscribed receiver, with the provider's
retry rule.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from conftest import WFM_SYNC, cli_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from support.servers import free_port, start_receiver

from emulator.spec_schemas import resolved
from inbox.events import FEATURE_FAMILIES, feature_event_types
from pipelines.subscriptions import is_ours, plan, wanted_subscriptions

TOKEN = "tok-7Hq2-secret-Zx9"
SECRET = "signing-secret-for-tests-only"


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WFM_SYNC, "webhooks", *args], env=env, capture_output=True,
                          text=True, timeout=300)  # fmt: skip


def control(server, path: str) -> dict:
    return httpx.get(f"{server.url}/_emulator/{path}", timeout=60).json()


@pytest.fixture
def env(start_emulator, tmp_path: Path) -> tuple[object, dict[str, str]]:
    server = start_emulator(users=40, schedulers=3, shifts=120)
    environment = cli_env(server, tmp_path / "wh.duckdb")
    environment.update(WEBHOOKS__TOKEN=TOKEN, WEBHOOKS__SIGNING_SECRET=SECRET, COLUMNS="200")
    return server, environment


def test_subscribe_creates_one_per_feature_and_entity_then_nothing(env) -> None:
    server, environment = env
    state = server.state
    # someone else's webhook, which wfm-sync must never touch
    state.webhook_store.create(
        {"name": "payroll export", "url": "https://payroll.example/hook", "featureType": "users",
         "eventTypes": ["user_created"], "entityId": None, "isDisabled": False,
         "webhookVersion": 1},
        0, 3,
    )  # fmt: skip
    clocks = sorted(str(c["id"]) for c in state.dataset.operations.time_clocks.values()
                    if not c["isArchived"])  # fmt: skip
    schedulers = sorted(str(s) for s in state.dataset.schedulers)
    url = "http://127.0.0.1:9/webhooks/connecteam"

    seeded = control(server, "webhooks")["writes"]
    dry = run(["subscribe", "--url", url, "--dry-run"], environment)
    assert dry.returncode == 0, dry.stderr
    assert control(server, "webhooks")["writes"] == seeded  # --dry-run writes nothing
    unscoped = len(FEATURE_FAMILIES) - 2
    expected = unscoped + len(clocks) + len(schedulers)
    assert dry.stdout.count("create") == expected

    first = run(["subscribe", "--url", url], environment)
    assert first.returncode == 0, first.stderr
    assert f"created {expected}, updated 0, deleted 0" in first.stdout
    ours = {w["name"]: w for w in state.webhook_store.webhooks.values()
            if w["name"].startswith("wfm-sync:")}  # fmt: skip
    assert sorted(ours) == sorted(
        [f"wfm-sync:{f}" for f in ("users", "forms", "tasks", "chat")]
        + [f"wfm-sync:time_activity:{c}" for c in clocks]
        + [f"wfm-sync:shift_scheduler:{s}" for s in schedulers]
    )
    for hook in ours.values():
        assert hook["url"] == f"{url}?token={TOKEN}"
        assert hook["secretKey"] == SECRET
        assert sorted(hook["eventTypes"]) == sorted(feature_event_types(hook["featureType"]))
        assert hook["entityId"] == (hook["name"].split(":")[2] if hook["name"].count(":") == 2
                                    else None)  # fmt: skip
    writes = len(control(server, "webhooks")["writes"])
    assert writes == len(seeded) + expected

    second = run(["subscribe", "--url", url], environment)
    assert second.returncode == 0, second.stderr
    assert "created 0, updated 0, deleted 0" in second.stdout
    assert len(control(server, "webhooks")["writes"]) == writes  # no request that writes

    listed = run(["list"], environment)
    assert listed.returncode == 0, listed.stderr
    assert "0 missing" in listed.stdout and "not ours" in listed.stdout

    version2 = run(["subscribe", "--url", url, "--shift-version", "2"], environment)
    assert f"created 0, updated {len(schedulers)}, deleted 0" in version2.stdout

    gone = run(["unsubscribe"], environment)
    assert gone.returncode == 0, gone.stderr
    assert [w["name"] for w in state.webhook_store.webhooks.values()] == ["payroll export"]

    for result in (dry, first, second, listed, version2, gone):
        assert TOKEN not in result.stdout + result.stderr
        assert SECRET not in result.stdout + result.stderr
    assert "token=***" in first.stdout


def test_subscribe_refuses_a_plain_http_url_elsewhere_and_names_the_fix(env) -> None:
    server, environment = env
    result = run(["subscribe", "--url", "http://example.com/hook"], environment)
    assert result.returncode == 2
    assert "https://" in result.stderr
    assert control(server, "webhooks")["writes"] == []
    no_token = {k: v for k, v in environment.items() if k != "WEBHOOKS__TOKEN"}
    result = run(["subscribe", "--url", "https://example.com/hook"], no_token)
    assert result.returncode == 2 and "WEBHOOKS__TOKEN" in result.stderr


def test_the_emulator_delivers_mutations_to_the_subscribed_receiver_with_retries(
    start_emulator, tmp_path: Path
) -> None:
    """Subscribed with version 2; the receiver is down at first, so the emulator retries (0.5 s
    apart here, 60 s at the provider) until it answers; every event is stored once."""
    import sqlite3

    server = start_emulator(
        users=40, schedulers=2, shifts=200, webhook_retries=120, webhook_retry_seconds=0.5
    )  # up to a minute for the receiver to start
    environment = cli_env(server, tmp_path / "wh.duckdb")
    environment.update(WEBHOOKS__TOKEN=TOKEN)
    port = free_port()
    url = f"http://127.0.0.1:{port}/webhooks/connecteam"
    result = run(["subscribe", "--url", url, "--shift-version", "2"], environment)
    assert result.returncode == 0, result.stderr
    changed = httpx.post(f"{server.url}/_emulator/mutate",
                         json={"move_shifts": 1, "add_shift_users": 1, "users": 2},
                         timeout=60).json()  # fmt: skip
    assert changed["webhook_deliveries"] == 4  # one per moved shift and changed user (v2)
    time.sleep(1.5)  # the first attempts find no receiver
    inbox = tmp_path / "inbox.sqlite3"
    receiver = start_receiver(port, f"sqlite:///{inbox}", TOKEN)
    try:
        report = control(server, "webhooks?wait=90")
        assert report["pending"] == 0
        assert report["deliveries"]["delivered"] == 4
        assert report["deliveries"]["retried"] >= 4
        with sqlite3.connect(inbox) as con:
            sql = "select event_type, count(*) from inbox_events group by 1"
            stored = con.execute(sql).fetchall()
        assert dict(stored) == {"shift_updated": 2, "user_updated": 2}
    finally:
        receiver.terminate()
        receiver.wait(timeout=30)


def test_the_provider_s_retry_rule_gives_up_after_three_retries(start_emulator) -> None:
    server = start_emulator(users=20, schedulers=1, shifts=40, webhook_retry_seconds=0.05)
    server.state.webhook_store.create(
        {"name": "wfm-sync:users", "url": f"http://127.0.0.1:{free_port()}/nobody",
         "featureType": "users", "eventTypes": ["user_updated"], "entityId": None,
         "isDisabled": False, "webhookVersion": 1},
        0, 3,
    )  # fmt: skip
    httpx.post(f"{server.url}/_emulator/mutate", json={"users": 1}, timeout=60)
    report = control(server, "webhooks?wait=30")
    assert report["deliveries"] == {"queued": 1, "retried": 3, "failed": 1}
    assert os.environ.get("WEBHOOKS__TOKEN") is None


# -- the plan on whatever the provider's spec allows -------------------------------------------

URL = "https://hooks.example/webhooks/connecteam?token=t"
WANTED = wanted_subscriptions(
    list(FEATURE_FAMILIES), {"time_activity": ["7", "7"], "shift_scheduler": ["9000"]}, 2
)
ODD = [  # beyond the spec: what a provider may still send
    {"name": None, "id": 1},
    {"name": "wfm-sync:users", "id": "not a number", "url": URL},
    {"id": 2**70, "name": "wfm-sync:gone", "eventTypes": None, "extra": {"x": 1}},
    {
        "id": 5,
        "name": "wfm-sync:forms",
        "eventTypes": [None, "x"],
        "webhookVersion": "v2",
        "entityId": 5,
        "url": URL,
    },
    {"id": 6, "name": "wfm-sync:tasks", "eventTypes": 5, "webhookVersion": 1e400},
    {},
]


@given(
    registered=st.lists(from_schema(resolved("WebhookResponse")) | st.sampled_from(ODD), max_size=8)
)
@settings(max_examples=80, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
def test_a_plan_touches_only_its_own_and_a_second_plan_keeps_everything(registered) -> None:
    """Registered webhooks drawn from the spec's WebhookResponse (and odder ones): the plan never
    updates or deletes another's, names every needed subscription once (an entity listed twice
    is needed once), and once carried out, planning again changes nothing."""
    steps = plan(WANTED, registered, URL)
    for step in steps:
        if step.existing is not None:
            assert is_ours(step.existing)
    assert sorted(s.name for s in steps if s.action != "delete") == sorted(w.name for w in WANTED)
    assert len({w.name for w in WANTED}) == len(WANTED) == 4 + 1 + 1
    others = [w for w in registered if not is_ours(w)]
    after = others + [{**w.request(URL, None), "id": n} for n, w in enumerate(WANTED)]
    assert {s.action for s in plan(WANTED, after, URL)} == {"keep"}


def test_plan_options_features_and_secret_rotation() -> None:
    """A feature listed twice is subscribed once; with chosen features, wfm-sync's other
    subscriptions stay; --rotate-secret updates those that match."""
    twice = wanted_subscriptions(["users", "users"], {}, 1)
    assert [w.name for w in twice] == ["wfm-sync:users"]
    everything = [{**w.request(URL, None), "id": n} for n, w in enumerate(WANTED)]
    only_shifts = wanted_subscriptions(["shift_scheduler"], {"shift_scheduler": ["9000"]}, 2)
    steps = plan(only_shifts, everything, URL, only_features=["shift_scheduler"])
    assert {s.action for s in steps} == {"keep"}  # nothing of users, forms, ... is deleted
    assert {s.action for s in plan(only_shifts, everything, URL)} == {"keep", "delete"}
    rotated = plan(WANTED, everything, URL, rotate_secret=True)
    assert {(s.action, tuple(s.changes)) for s in rotated} == {("update", ("secretKey",))}


def test_a_bad_subscription_fails_its_deliveries_and_never_the_others(start_emulator) -> None:
    server = start_emulator(users=20, schedulers=1, shifts=40, webhook_retry_seconds=0.05)
    store = server.state.webhook_store
    for name, url, secret in (("bad secret", f"http://127.0.0.1:{free_port()}/a", "whsec_"),
                              ("bad url", "http://127.0.0.1/\t", None),
                              ("fine", f"http://127.0.0.1:{free_port()}/b", None)):  # fmt: skip
        store.create({"name": name, "url": url, "secretKey": secret, "featureType": "users",
                      "eventTypes": ["user_updated"], "entityId": None, "isDisabled": False,
                      "webhookVersion": 1}, 0, 3)  # fmt: skip
    httpx.post(f"{server.url}/_emulator/mutate", json={"users": 1}, timeout=60)
    report = control(server, "webhooks?wait=30")
    assert report["pending"] == 0  # the delivery thread lived through the bad ones
    assert report["deliveries"]["failed"] == 3
