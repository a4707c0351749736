"""The receiver's Standard Webhooks answers (checked by the ``standardwebhooks`` package) and its
settings from the ``[webhooks]`` configuration, against a real HTTP server and SQLite inbox."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import httpx
import orjson
import pytest
from support.webhooks import deliver, hook_url

from core.settings import in_project
from emulator.server import BackgroundServer
from emulator.webhooks import signature_headers
from flows.cli.receiving import receiver_config_from_dlt as config_from_dlt
from inbox import Inbox
from receiver import ReceiverConfig, ReceiverConfigError, create_app

TOKEN = "wh-token-7c1e"
SECRET = "whsec_" + "c2VjcmV0LWtleS1mb3ItdGVzdHM="  # base64 of "secret-key-for-tests"
BODY = orjson.dumps({"eventType": "clock_in", "eventTimestamp": 1_700_000_000, "requestId": "r"})


def serve(tmp_path, secret: str) -> tuple[BackgroundServer, str]:
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    app = create_app(ReceiverConfig(token=TOKEN, inbox_url=inbox_url, signing_secret=secret))
    return BackgroundServer(app).start(), inbox_url


def post(server: BackgroundServer, body: bytes, headers: dict[str, str]) -> httpx.Response:
    """:func:`support.webhooks.deliver` to ``server``'s webhook URL, with :data:`TOKEN`."""
    return deliver(hook_url(server), body, TOKEN, **headers)


def stored(inbox_url: str) -> tuple[int, int]:
    inbox = Inbox(inbox_url)
    try:
        counts = inbox.counts()
    finally:
        inbox.close()
    return counts["events"], counts["quarantine"]


def test_signature_failures_answer_401_with_their_reason_and_store_nothing(tmp_path):
    server, inbox_url = serve(tmp_path, SECRET)
    now = int(time.time())
    good = signature_headers(SECRET, "msg-1", now, BODY)
    cases = {
        "missing webhook-id, webhook-timestamp or webhook-signature header": {},
        "webhook-timestamp is not an integer": {**good, "webhook-timestamp": "soon"},
        "webhook-timestamp is outside the allowed 5 minutes": signature_headers(
            SECRET, "msg-1", now - 301, BODY
        ),
        "signature does not match": signature_headers(SECRET, "msg-1", now, b"{}"),
        "webhook-timestamp is outside the allowed 5 minutes ": signature_headers(
            SECRET, "msg-1", now + 360, BODY
        ),  # a future time (trailing space: a second key for the same reason)
        "signature does not match ": {**good, "webhook-signature": "v1"},  # not version,value
    }
    try:
        for reason, headers in cases.items():
            response = post(server, BODY, headers)
            assert response.status_code == 401, reason
            assert response.json() == {"detail": f"bad signature: {reason.strip()}"}
        not_utf8 = b'{"eventType": "clock_in", "x": "\xff"}'
        response = post(server, not_utf8, good)
        assert response.status_code == 401 and "not UTF-8" in response.json()["detail"]
        assert stored(inbox_url) == (0, 0)
        # several entries, any whitespace between them, unknown versions skipped: one matches
        several = {**good, "webhook-signature": "v2,AAAA  v1,AAAA\t" + good["webhook-signature"]}
        assert post(server, BODY, several).status_code == 200
        assert stored(inbox_url) == (1, 0)
    finally:
        server.stop()


def test_a_plain_text_secret_is_its_own_key(tmp_path):
    """A secret without ``whsec_`` is the HMAC key as text: signatures made with those bytes as
    the key verify, as the emulator's sender makes them and as computed by hand."""
    plain = "plain-text-secret"
    server, _ = serve(tmp_path, plain)
    stamp = int(time.time())
    digest = hmac.new(plain.encode(), f"msg-2.{stamp}.".encode() + BODY, hashlib.sha256).digest()
    by_hand = {"webhook-id": "msg-2", "webhook-timestamp": str(stamp),
               "webhook-signature": "v1," + base64.b64encode(digest).decode()}  # fmt: skip
    try:
        assert post(server, BODY, by_hand).json()["status"] == "stored"
        sent = signature_headers(plain, "msg-3", stamp, BODY)
        assert post(server, BODY, sent).json()["status"] == "already stored"
    finally:
        server.stop()


def test_settings_come_from_the_webhooks_configuration(tmp_path, monkeypatch):
    inbox_url = f"sqlite:///{tmp_path / 'configured.sqlite3'}"
    monkeypatch.setenv("WEBHOOKS__TOKEN", TOKEN)
    monkeypatch.setenv("WEBHOOKS__SIGNING_SECRET", SECRET)
    monkeypatch.setenv("WEBHOOKS__INBOX_URL", inbox_url)
    monkeypatch.setenv("WEBHOOKS__MAX_BODY_BYTES", "2048")
    settings = config_from_dlt()
    assert (settings.token, settings.signing_secret, settings.inbox_url) == (
        TOKEN,
        SECRET,
        inbox_url,
    )
    assert settings.max_body_bytes == 2048 and not settings.allow_open
    # a relative SQLite path resolves from the project's home, not the current directory
    other = config_from_dlt("sqlite:///other.sqlite3").inbox_url
    assert other == f"sqlite:///{in_project('other.sqlite3')}"
    monkeypatch.setenv("WEBHOOKS__TOKEN", "")
    with pytest.raises(ReceiverConfigError, match="WEBHOOKS__TOKEN"):
        config_from_dlt()
    assert config_from_dlt(allow_open=True).token is None
    with pytest.raises(ReceiverConfigError, match="WEBHOOKS__SIGNING_SECRET"):
        ReceiverConfig(token=TOKEN, inbox_url=inbox_url, signing_secret="whsec_")
