"""A rotation retires the previous token only once it has gone quiet, and a signed body too large
to verify is refused unkept: the receiver as a real HTTP server on 127.0.0.1 with a real SQLite
inbox (:mod:`receiver.auth`, :mod:`inbox.rotation`)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import test_receiver_auth
from test_receiver_auth import (
    OLD_TOKEN,
    PATH,
    SECRET,
    TOKEN,
    event,
    post,
    query,
    refusals,
    signed,
    stored,
)

receiver = test_receiver_auth.receiver  # the fixture
GRACE = 2.0


def test_the_previous_token_is_retired_only_once_it_has_been_quiet_for_the_grace(receiver):
    """The new token seen, but some deliveries still made with the old one (a subscription the
    rotation did not update): the old one stays valid past the grace for as long as it is used;
    once it has been unused for the grace, it is refused and counted as retired."""
    server = receiver(previous_token=OLD_TOKEN, rotation_grace_seconds=GRACE)
    assert post(server, event(0), TOKEN).status_code == 200  # the new token seen
    seen = time.time()
    n = 1
    while time.time() < seen + 2.5 * GRACE:  # in use, 0.5 s apart, well past seen + grace
        assert post(server, event(n), OLD_TOKEN).status_code == 200, n
        n += 1
        time.sleep(0.5)
    time.sleep(GRACE + 1.5)  # quiet for the grace (and a flush)
    late = post(server, event(n), OLD_TOKEN)
    assert late.status_code == 401 and late.json()["detail"] == "missing or wrong webhook token"
    assert post(server, event(n), TOKEN).status_code == 200
    server.stop()
    assert refusals(server.inbox_url) == {"retired previous token": 1}
    assert stored(server.inbox_url) == (n + 1, 0)


def test_rotating_a_to_b_then_back_to_a_then_to_b_again_keeps_each_old_token_until_quiet(
    receiver,
):
    """Each rotation keeps its own sighting (keyed by the new and previous credentials): after
    A to B is over, B to A accepts B until A has been seen and B is quiet, and a later A to B
    starts afresh."""
    a, b = OLD_TOKEN, TOKEN

    def rotate(new: str, old: str) -> object:
        return receiver(token=new, previous_token=old, rotation_grace_seconds=1)

    def retire(new: str, old: str, n: int) -> None:
        server = rotate(new, old)
        assert post(server, event(n), old).status_code == 200  # not retired: the new one unseen
        assert post(server, event(n + 1), new).status_code == 200  # seen
        assert post(server, event(n + 2), old).status_code == 200  # within the grace
        time.sleep(1.6)
        assert post(server, event(n + 3), old).status_code == 401  # quiet for the grace
        server.stop()  # type: ignore[attr-defined]

    retire(b, a, 0)  # A to B
    retire(a, b, 10)  # B to A: B accepted at first although its sighting (A to B) is old
    retire(b, a, 20)  # A to B again: A to B's old row was dropped when A was seen
    inbox_url = receiver().inbox_url
    assert refusals(inbox_url) == {"retired previous token": 3}
    assert stored(inbox_url) == (9, 0)  # event(n), event(n + 1), event(n + 2) of each
    assert query(inbox_url, "select count(*) from inbox_rotations") == [(1,)]


def test_a_signed_body_too_large_or_too_slow_to_verify_is_refused_and_not_kept(receiver):
    """Over 16 times ``max_body_bytes`` (1,000 here), or not received within the deadline (1 s),
    a body with a good signature is answered 413 without reading it all, counted, nothing kept;
    one within both is verified and quarantined as usual."""
    server = receiver(signing_secret=SECRET, max_body_bytes=1000, deadline_seconds=1)
    inbox_url = server.inbox_url

    def send(size: int, pause: float = 0.0) -> httpx.Response:
        body = b'{"eventType": "clock_in", "pad": "' + b"x" * (size - 36) + b'"}'
        assert len(body) == size

        def chunks() -> Iterator[bytes]:
            for i in range(0, len(body), 500):
                time.sleep(pause)
                yield body[i : i + 500]

        headers = {**signed(SECRET, body), "x-webhook-token": TOKEN}
        return httpx.post(server.url + PATH, content=chunks(), headers=headers, timeout=30)

    huge = send(16_001 + 4_000)
    assert huge.status_code == 413
    assert huge.json()["detail"] == (
        "body too large to verify: over 16000 bytes, or not received within 1 s"
    )
    slow = send(3_000, pause=0.3)  # 6 chunks, 1.5 s or more
    assert slow.status_code == 413 and slow.json()["detail"].startswith("body too large to verify")
    assert stored(inbox_url) == (0, 0)
    within = send(16_000)
    assert within.status_code == 413
    assert within.json()["detail"] == "body of 16000 bytes is over the 1000-byte limit"
    server.stop()
    assert refusals(inbox_url) == {"body too large to verify": 2}
    assert stored(inbox_url) == (0, 1)
