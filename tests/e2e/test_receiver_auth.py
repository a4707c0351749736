"""Refused deliveries are counted and seen, and a rotation loses nothing: the receiver as a real
HTTP server on 127.0.0.1 with a real SQLite inbox, ``wfm-sync status`` as the installed command.

Covers the receiver's authentication (:mod:`receiver.auth`): refusals counted by reason in the
inbox (``inbox_refusals``) and none stored, ``status`` exiting 1 while a delivery was refused
since the last stored event, the previous token and secret accepted until the new ones have been
seen and the previous ones have gone quiet for the grace (more in test_receiver_rotation.py),
signature report mode, and oversize bodies verified before quarantine.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
import sqlalchemy as sa
from conftest import WFM_SYNC, cli_env, point_at
from support.webhooks import deliver, hook_url, receivers

from emulator.server import BackgroundServer
from emulator.webhooks import signature_headers
from flows.cli.receiving import receiver_config_from_dlt as config_from_dlt
from inbox import Inbox
from inbox.rotation import fingerprint
from pipelines import run_sync
from receiver import PATH, ReceiverConfig, ReceiverConfigError, create_app
from sources.configuration import resolve

TOKEN = "tok-new-4f2a9c"
OLD_TOKEN = "tok-old-81d3e0"
SECRET = "whsec_" + "bmV3LXNpZ25pbmcta2V5LWZvci10ZXN0cw=="  # base64 of "new-signing-key-for-tests"
OLD_SECRET = "old-plain-text-secret"
OTHER_SECRET = "a-scheme-the-provider-does-not-use"
NO_MATCH = "bad signature: signature does not match"
NO_HEADERS = "bad signature: missing webhook-id, webhook-timestamp or webhook-signature header"


def event(n: int, kind: str = "clock_in") -> bytes:
    return orjson.dumps(
        {"eventType": kind, "eventTimestamp": 1_700_000_000 + n, "requestId": f"req-{kind}-{n}"}
    )


def signed(secret: str, body: bytes, msg: str = "msg") -> dict[str, str]:
    return signature_headers(secret, msg, int(time.time()), body)


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator:
    """``receiver(**settings)`` starts one on the test's inbox (``tmp_path/inbox.sqlite3``); each
    is stopped (its counts written) at teardown, or by ``stop()`` on it."""
    with receivers(tmp_path, TOKEN, shared_inbox=True) as start:
        yield start


def post(server: BackgroundServer, body: bytes, token: str | None = TOKEN, **headers: str):
    """:func:`support.webhooks.deliver` to ``server``'s webhook URL, with :data:`TOKEN`."""
    return deliver(hook_url(server), body, token, **headers)


def query(inbox_url: str, sql: str) -> list[tuple]:
    inbox = Inbox(inbox_url)  # its driver: psycopg2 for a postgresql:// URL
    try:
        with inbox.engine.connect() as conn:
            return [tuple(row) for row in conn.execute(sa.text(sql))]
    finally:
        inbox.close()


def refusals(inbox_url: str, total: int | None = None) -> dict[str, int]:
    """``{reason: count}`` in the inbox; with ``total``, waited for (the receiver writes its counts
    every second) up to a generous deadline."""
    deadline = time.monotonic() + 30
    while True:
        rows = query(inbox_url, "select reason, sum(refusal_count) from inbox_refusals group by 1")
        counts = {str(reason): int(n) for reason, n in rows}
        if total is None or sum(counts.values()) >= total or time.monotonic() > deadline:
            return counts
        time.sleep(0.2)


def stored(inbox_url: str) -> tuple[int, int]:
    inbox = Inbox(inbox_url)
    try:
        counts = inbox.counts()
    finally:
        inbox.close()
    return counts["events"], counts["quarantine"]


def status(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WFM_SYNC, "status", *args], env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


@pytest.mark.slow  # a sync, then `wfm-sync status` three times
def test_refused_deliveries_are_counted_never_stored_and_status_fails_until_one_is_stored(
    receiver, start_emulator, monkeypatch, tmp_path
):
    """200 refused deliveries (four reasons, sent concurrently) are counted, 200 in all, none
    stored; ``status`` exits 1 naming them; after one stored event it exits 0 again, still
    listing the last hour's refusals."""
    emulator = start_emulator(users=20, forms=1, schedulers=1, shifts=20)
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(warehouse))
    point_at(monkeypatch, emulator)
    run_sync(project=resolve())  # a healthy warehouse: status's only problem will be the refusals
    server = receiver(signing_secret=SECRET)
    inbox_url = server.inbox_url
    body = event(1)
    attempts = (
        [({}, None)] * 50  # no token
        + [({}, "not-the-token")] * 50
        + [(signed(OTHER_SECRET, body), TOKEN)] * 50  # the provider signs another way
        + [({}, TOKEN)] * 50  # unsigned
    )

    async def send_all() -> list[int]:
        async with httpx.AsyncClient(timeout=60) as client:
            answers = await asyncio.gather(*(
                client.post(server.url + PATH, content=body,
                            headers={**headers, **({"x-webhook-token": t} if t else {})})
                for headers, t in attempts
            ))  # fmt: skip
        return [a.status_code for a in answers]

    assert asyncio.run(send_all()) == [401] * 200
    counts = refusals(inbox_url, total=200)
    assert counts == {"missing token": 50, "wrong token": 50, NO_MATCH: 50, NO_HEADERS: 50}
    assert stored(inbox_url) == (0, 0)

    env = {**cli_env(emulator, warehouse), "WEBHOOKS__INBOX_URL": inbox_url, "COLUMNS": "200"}
    result = status(env, "--json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["refusals"]["refused"] == counts == report["refusals"]["last_hour"]
    assert report["refusals"]["last_stored_at"] is None
    (problem,) = report["problems"]
    assert problem.startswith("200 webhook deliveries refused since the last stored event")
    assert "wrong token 50" in problem and "WEBHOOKS__TOKEN" in problem
    text = status(env)
    assert text.returncode == 1 and "wrong token 50" in text.stderr
    assert "webhook deliveries refused in the last hour: " in text.stdout

    assert post(server, body, **signed(SECRET, body)).json()["status"] == "stored"
    result = status(env, "--json")
    report = json.loads(result.stdout)
    assert result.returncode == 0, report["problems"]
    assert report["refusals"]["refused"] == {} and report["refusals"]["last_hour"] == counts
    assert report["refusals"]["last_stored_at"] is not None


def test_a_rotation_interleaving_old_and_new_stores_every_event_then_retires_the_old(
    receiver,
):
    """While the previous token and secret are configured, deliveries made with the old and the
    new ones, interleaved, are all stored; the new ones' first sighting and the old ones' last use
    are kept in the inbox, so a receiver restarted the grace after both refuses the old ones
    (counted as retired)."""
    rotating = {"signing_secret": SECRET, "previous_token": OLD_TOKEN,
                "previous_signing_secret": OLD_SECRET}  # fmt: skip
    server = receiver(**rotating, rotation_grace_seconds=3600)
    inbox_url = server.inbox_url
    old = [event(n) for n in range(20)]
    for body in old[:5]:  # the provider still sends the old ones: accepted, the new one unseen
        assert post(server, body, OLD_TOKEN, **signed(OLD_SECRET, body)).status_code == 200
    new = [event(n, "clock_out") for n in range(20)]
    for n in range(5, 20):  # retries of old deliveries among new ones
        assert post(server, old[n], OLD_TOKEN, **signed(OLD_SECRET, old[n])).status_code == 200
        assert post(server, new[n], TOKEN, **signed(SECRET, new[n])).status_code == 200
    assert stored(inbox_url) == (35, 0)
    server.stop()  # writes the sighting
    ((current, previous, first_seen, last_used),) = query(
        inbox_url, "select * from inbox_rotations"
    )
    assert current == fingerprint(TOKEN, SECRET) and TOKEN not in current
    assert previous == fingerprint(OLD_TOKEN, OLD_SECRET)
    assert first_seen < last_used <= time.time()  # old ones were used after the new was seen

    server = receiver(**rotating, rotation_grace_seconds=1)
    time.sleep(max(0.0, last_used + 1.1 - time.time()))  # past the grace after the last use
    body = event(99)
    assert post(server, body, OLD_TOKEN, **signed(OLD_SECRET, body)).status_code == 401
    late = post(server, body, TOKEN, **signed(OLD_SECRET, body))
    assert late.status_code == 401 and "replaced" in late.json()["detail"]
    assert post(server, body, TOKEN, **signed(SECRET, body)).status_code == 200
    server.stop()
    assert refusals(inbox_url) == {"retired previous token": 1,
                                   "retired previous signing secret": 1}  # fmt: skip
    assert stored(inbox_url) == (36, 0)


def test_report_mode_stores_a_badly_signed_event_and_counts_what_it_would_refuse(receiver):
    server = receiver(signing_secret=SECRET, signature_mode="report")
    inbox_url = server.inbox_url
    first, second, third = event(1), event(2), event(3)
    assert post(server, first, **signed(OTHER_SECRET, first)).json()["status"] == "stored"
    assert post(server, second).json()["status"] == "stored"  # no signature at all
    assert post(server, third, **signed(SECRET, third)).json()["status"] == "stored"
    assert post(server, third, token="wrong", **signed(SECRET, third)).status_code == 401
    server.stop()
    assert refusals(inbox_url) == {
        f"would-refuse: {NO_MATCH}": 1, f"would-refuse: {NO_HEADERS}": 1, "wrong token": 1
    }  # fmt: skip
    assert stored(inbox_url) == (3, 0)


def test_an_oversize_body_is_quarantined_only_once_its_signature_verified(receiver):
    """Over ``max_body_bytes`` (1,000 here), sent in chunks without a length: a wrong signature
    or token is refused and nothing is kept; a good signature, verified over the whole streamed
    body, gets 413 and its first 1,000 bytes quarantined."""
    server = receiver(signing_secret=SECRET, max_body_bytes=1000, previous_token=OLD_TOKEN,
                      previous_signing_secret=OLD_SECRET)  # fmt: skip
    inbox_url = server.inbox_url
    body = b'{"eventType": "clock_in", "pad": "' + b"x" * 9_000 + b'"}'

    def send(secret: str, token: str = TOKEN) -> httpx.Response:
        headers = {**signed(secret, body), "x-webhook-token": token}
        chunks = (body[i : i + 700] for i in range(0, len(body), 700))  # chunked: no length
        return httpx.post(server.url + PATH, content=chunks, headers=headers, timeout=30)

    bad = send(OTHER_SECRET)
    assert bad.status_code == 401 and bad.json()["detail"] == NO_MATCH
    assert send(SECRET, token="wrong").status_code == 401
    declared = post(server, body, **signed(OTHER_SECRET, body))  # with a Content-Length
    assert declared.status_code == 401
    assert stored(inbox_url) == (0, 0)
    for secret in (SECRET, OLD_SECRET):  # the previous secret verifies too, until retired
        answer = send(secret)
        assert answer.status_code == 413
        assert answer.json()["detail"] == f"body of {len(body)} bytes is over the 1000-byte limit"
    server.stop()
    rows = query(inbox_url, "select status_code, body_bytes, is_truncated, length(body) "
                            "from inbox_quarantine")  # fmt: skip
    assert rows == [(413, len(body), 1, 1000)] * 2
    assert refusals(inbox_url) == {NO_MATCH: 2, "wrong token": 1}


def test_an_unsigned_receiver_checks_the_token_before_keeping_an_oversize_body(receiver):
    server = receiver(max_body_bytes=1000)
    body = b"{" + b" " * 5000 + b"}"
    assert post(server, body, token="wrong").status_code == 401
    assert post(server, body).status_code == 413
    server.stop()
    assert stored(server.inbox_url) == (0, 1)
    assert refusals(server.inbox_url) == {"wrong token": 1}


def test_rotation_and_signature_settings_are_checked(tmp_path, monkeypatch):
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    bad = {
        "WEBHOOKS__PREVIOUS_TOKEN is set but WEBHOOKS__TOKEN": {
            "token": None, "allow_open": True, "previous_token": OLD_TOKEN},
        "WEBHOOKS__PREVIOUS_TOKEN equals WEBHOOKS__TOKEN": {"previous_token": TOKEN},
        "WEBHOOKS__PREVIOUS_SIGNING_SECRET is set": {"previous_signing_secret": OLD_SECRET},
        "WEBHOOKS__PREVIOUS_SIGNING_SECRET is not a Standard Webhooks secret": {
            "signing_secret": SECRET, "previous_signing_secret": "whsec_"},
        "WEBHOOKS__SIGNATURE_MODE='audit'": {"signature_mode": "audit"},
        "WEBHOOKS__ROTATION_GRACE_SECONDS": {"rotation_grace_seconds": -1},
    }  # fmt: skip
    for message, options in bad.items():
        with pytest.raises(ReceiverConfigError, match=message.replace("(", r"\(")):
            ReceiverConfig(**{"token": TOKEN, "inbox_url": inbox_url, **options})  # type: ignore[arg-type]
    for name, value in (("TOKEN", TOKEN), ("PREVIOUS_TOKEN", OLD_TOKEN),
                        ("SIGNING_SECRET", SECRET), ("PREVIOUS_SIGNING_SECRET", OLD_SECRET),
                        ("SIGNATURE_MODE", " Report"), ("ROTATION_GRACE_SECONDS", "90"),
                        ("INBOX_URL", inbox_url)):  # fmt: skip
        monkeypatch.setenv(f"WEBHOOKS__{name}", value)
    settings = config_from_dlt()
    assert (settings.previous_token, settings.previous_signing_secret) == (OLD_TOKEN, OLD_SECRET)
    assert (settings.signature_mode, settings.rotation_grace_seconds) == ("report", 90.0)


def test_subscribe_rotate_secret_needs_the_previous_token_and_loses_no_delivery(
    start_emulator, receiver, tmp_path
):
    """The emulator delivers with the old token and secret, then ``subscribe --rotate-secret``
    (refused, writing nothing, until the receiver's settings name the previous token) sends the
    new ones: every delivery before and after is stored, none refused."""
    emulator = start_emulator(users=20, schedulers=1, shifts=20, webhook_retry_seconds=0.2)
    server = receiver(signing_secret=SECRET, previous_token=OLD_TOKEN,
                      previous_signing_secret=OLD_SECRET)  # fmt: skip
    env = {**cli_env(emulator, tmp_path / "wh.duckdb"), "COLUMNS": "200",
           "WEBHOOKS__TOKEN": OLD_TOKEN, "WEBHOOKS__SIGNING_SECRET": OLD_SECRET}  # fmt: skip
    command = [*WFM_SYNC, "webhooks", "subscribe", "--url", server.url + PATH, "--features",
               "users"]  # fmt: skip

    def subscribe(environment: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*command, *args], env=environment, capture_output=True,
                              text=True, timeout=300)  # fmt: skip

    def deliver(users: int) -> None:
        changed = httpx.post(f"{emulator.url}/_emulator/mutate", json={"users": users},
                             timeout=60).json()  # fmt: skip
        assert changed["webhook_deliveries"] == users
        report = httpx.get(f"{emulator.url}/_emulator/webhooks?wait=90", timeout=120).json()
        assert report["pending"] == 0

    assert subscribe(env).returncode == 0
    deliver(2)  # with the old token and secret
    new = {**env, "WEBHOOKS__TOKEN": TOKEN, "WEBHOOKS__SIGNING_SECRET": SECRET}
    writes = len(httpx.get(f"{emulator.url}/_emulator/webhooks", timeout=60).json()["writes"])
    refused = subscribe(new, "--rotate-secret")
    assert refused.returncode == 2 and "WEBHOOKS__PREVIOUS_TOKEN" in refused.stderr
    assert (
        len(httpx.get(f"{emulator.url}/_emulator/webhooks", timeout=60).json()["writes"]) == writes
    )
    rotating = {**new, "WEBHOOKS__PREVIOUS_TOKEN": OLD_TOKEN,
                "WEBHOOKS__PREVIOUS_SIGNING_SECRET": OLD_SECRET}  # fmt: skip
    rotated = subscribe(rotating, "--rotate-secret")
    assert rotated.returncode == 0, rotated.stderr
    assert "updated 1" in rotated.stdout and "rotation:\n  1. " in rotated.stdout
    assert "remove WEBHOOKS__PREVIOUS_TOKEN and WEBHOOKS__PREVIOUS_SIGNING_SECRET" in rotated.stdout
    for secret in (TOKEN, OLD_TOKEN, SECRET, OLD_SECRET):
        assert secret not in rotated.stdout + rotated.stderr
    deliver(3)  # with the new ones
    server.stop()
    assert stored(server.inbox_url) == (5, 0)
    assert refusals(server.inbox_url) == {}
    assert query(server.inbox_url, "select count(*) from inbox_rotations "
                                   "where current_seen is not null") == [(1,)]  # fmt: skip


def test_two_receivers_on_one_postgresql_inbox_share_counts_and_the_rotation(postgres):
    """Two receivers on one PostgreSQL inbox: their refusals add up in one table, and the new
    token seen by one retires the old one at the other once the grace has passed."""
    from support.servers import fresh_database

    inbox_url = fresh_database(postgres, "auth_rotation")
    rotating = {"token": TOKEN, "inbox_url": inbox_url, "previous_token": OLD_TOKEN,
                "rotation_grace_seconds": 1}  # fmt: skip
    first = BackgroundServer(create_app(ReceiverConfig(**rotating))).start()  # type: ignore[arg-type]
    second = BackgroundServer(create_app(ReceiverConfig(**rotating))).start()  # type: ignore[arg-type]
    try:
        for server in (first, second):
            for n in range(3):
                assert post(server, event(n, "clock_out"), token="nope").status_code == 401
            assert post(server, event(1), OLD_TOKEN).status_code == 200  # new token unseen
        seen_at = time.time()
        assert post(first, event(2), TOKEN).status_code == 200
        deadline = time.monotonic() + 30  # the second learns it from the inbox (every second)
        answers = []  # a busy machine may let event(3) in before the second learns it
        while time.monotonic() < deadline:
            time.sleep(max(1.3, seen_at + 1.2 - time.time()))  # an accepted use restarts the grace
            answers.append(post(second, event(3), OLD_TOKEN).status_code)
            if answers[-1] == 401:
                break
        assert answers[-1] == 401 and set(answers) <= {200, 401}, answers
    finally:
        first.stop()
        second.stop()
    assert refusals(inbox_url) == {"wrong token": 6, "retired previous token": 1}
    # event(1) twice is one event, then event(2), and event(3) once if the old token still
    # passed at the second before it learned of the new one
    assert stored(inbox_url)[0] == 2 + (200 in answers)
