"""The webhook receiver under hostile input: a seeded property-based fuzz (hypothesis) against the
receiver as a real HTTP server on 127.0.0.1 with a real SQLite inbox, and the edges of its group
commit (a body the inbox cannot store, an inbox locked past its timeout, the overflowing event time
of issue 13 in one commit with good events).

What must hold for every body, whatever it holds: no 5xx (a 5xx tells the provider "transient,
retry", and it gives up after three); a 200 body is in the inbox exactly once, a refused one in the
quarantine once per delivery and never in the inbox; a fold afterwards loads every stored event.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from conftest import query
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.server import BackgroundServer
from emulator.spec_data import spec_webhook_bodies
from emulator.webhooks import make_event
from inbox import CATALOGUE
from pipelines.fold import run_fold
from receiver import PATH, GroupCommitWriter, ReceiverConfig, create_app
from sources.configuration import resolve

TOKEN = "fuzz-token-3b9"
LIMIT = 64 * 1024
"""The fuzzed receiver's ``max_body_bytes``: small, so oversized bodies are cheap to send."""
BATCH = 30
"""Bodies per hypothesis example, sent at once (so they share group commits)."""
EXAMPLES = 190
"""Examples in the fuzz: ``BATCH * EXAMPLES`` = 5,700 bodies sent (hypothesis repeats some from
earlier examples: re-deliveries; over 5,000 distinct)."""
OVERFLOWING = b'{"eventType": "clock_in", "eventTimestamp": 99999999999999999999999999999999}'
"""The body of issue 13: an event time beyond 64 bits (once an ``OverflowError`` at insert)."""
SHARED_REQUEST_IDS = ["shared-request-1", "shared-request-2", "spec-29-0"]
"""``requestId``s the fuzz gives many bodies: several events of one request, and the same key
with different bodies."""


def receiver_app(inbox_path: Path, timeout: float, **settings: Any) -> Any:
    """The receiver app on a SQLite inbox whose writer waits ``timeout`` s for a busy lock."""
    url = f"sqlite:///{inbox_path}?timeout={timeout}"
    return create_app(ReceiverConfig(token=TOKEN, inbox_url=url, **settings))


async def until(condition: Callable[[], bool], what: str, seconds: float = 300) -> None:
    """Wait for an observable ``condition`` (polled), failing after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


async def in_one_group(
    url: str, writer: GroupCommitWriter, inbox_path: Path, bodies: Sequence[bytes]
) -> list[httpx.Response]:
    """POST ``bodies`` so that the receiver commits them in one group.

    The test holds the inbox's write lock; a first event is taken by the writer thread alone and
    waits for the lock; the bodies are sent and wait in the writer's queue; then the lock is
    released and the writer takes them all at once. Needs a receiver whose busy timeout outlasts
    the sending (:func:`receiver_app` with a long ``timeout``).
    """
    headers = {"x-webhook-token": TOKEN, "content-type": "application/json"}
    blocker = orjson.dumps(make_event("clock_in", random.Random(99)))
    before = writer.groups
    lock = sqlite3.connect(inbox_path, isolation_level=None)
    try:
        lock.execute("BEGIN IMMEDIATE")
        async with httpx.AsyncClient(timeout=600) as client:
            first = asyncio.create_task(client.post(url, content=blocker, headers=headers))
            await until(lambda: writer.groups == before + 1, "the writer to take the first event")
            sent = [
                asyncio.create_task(client.post(url, content=b, headers=headers)) for b in bodies
            ]
            await until(lambda: writer.pending() == len(bodies), "the bodies to queue up")
            lock.execute("COMMIT")
            answers = await asyncio.gather(*sent)
            assert (await first).status_code == 200
    finally:
        lock.close()
    assert writer.groups == before + 2, "the bodies were not committed as one group"
    return list(answers)


def inbox_rows(inbox_path: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(inbox_path) as con:
        return con.execute(sql, args).fetchall()


# -- the named cases ----------------------------------------------------------------------------


def test_the_overflowing_event_time_is_stored_flagged_in_one_commit_with_good_events(
    tmp_path, warehouse
):
    inbox_path = tmp_path / "inbox.sqlite3"
    app = receiver_app(inbox_path, timeout=600)
    rng = random.Random(13)
    good = [
        orjson.dumps(make_event(t, rng))
        for t in ("clock_in", "shift_created", "user_updated", "form_submission", "clock_out")
    ]
    with BackgroundServer(app) as server:
        answers = asyncio.run(
            in_one_group(
                server.url + PATH, app.state.writer, inbox_path, [*good[:2], OVERFLOWING, *good[2:]]
            )
        )
    assert [a.status_code for a in answers] == [200] * 6, [a.text for a in answers]
    stored = inbox_rows(
        inbox_path, "select body, event_timestamp, is_event_time_implausible from inbox_events"
    )
    by_body = {bytes(r[0]): r[1:] for r in stored}
    assert by_body[OVERFLOWING] == (None, 1)
    assert all(by_body[b][0] is not None and by_body[b][1] == 0 for b in good)
    assert inbox_rows(inbox_path, "select count(*) from inbox_quarantine") == [(0,)]

    summary = run_fold(project=resolve(inbox_url=f"sqlite:///{inbox_path}"))
    assert summary.events == 7 and summary.implausible_times == 1
    rows = query(
        warehouse,
        "select event_timestamp, is_event_time_implausible, payload "
        "from webhooks.events where event_type = 'clock_in' and request_id is null",
    )
    assert rows == [(None, True, OVERFLOWING.decode())]


def test_a_body_the_inbox_refuses_is_quarantined_and_the_rest_of_its_group_is_stored(tmp_path):
    inbox_path = tmp_path / "inbox.sqlite3"
    app = receiver_app(inbox_path, timeout=600)
    # a database rule refusing one value: any storage error caused by a body behaves the same
    inbox_rows(
        inbox_path,
        "create trigger refuse_poison before insert on inbox_events "
        "when new.company = 'poison' begin "
        "select raise(abort, 'company poison is refused by a database rule'); end",
    )
    rng = random.Random(14)
    good = [orjson.dumps(make_event("clock_in", rng)) for _ in range(9)]
    poison = orjson.dumps(dict(make_event("clock_out", rng), company="poison"))
    with BackgroundServer(app) as server:
        answers = asyncio.run(
            in_one_group(
                server.url + PATH, app.state.writer, inbox_path, [*good[:4], poison, *good[4:]]
            )
        )
    statuses = [a.status_code for a in answers]
    assert statuses == [200] * 4 + [422] + [200] * 5
    assert "refused by a database rule" in answers[4].json()["detail"]
    stored = {bytes(r[0]) for r in inbox_rows(inbox_path, "select body from inbox_events")}
    assert set(good) <= stored and poison not in stored
    assert inbox_rows(inbox_path, "select status_code, body from inbox_quarantine") == [
        (422, poison)
    ]


def test_an_inbox_locked_past_its_timeout_answers_503_and_the_retry_is_stored(tmp_path):
    inbox_path = tmp_path / "inbox.sqlite3"
    app = receiver_app(inbox_path, timeout=0.2)
    body = orjson.dumps(make_event("clock_in", random.Random(15)))
    headers = {"x-webhook-token": TOKEN}
    with BackgroundServer(app) as server:
        url = server.url + PATH
        lock = sqlite3.connect(inbox_path, isolation_level=None)
        lock.execute("BEGIN IMMEDIATE")
        try:
            locked = httpx.post(url, content=body, headers=headers, timeout=60)
            refused = httpx.post(url, content=b"not json", headers=headers, timeout=60)
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        assert locked.status_code == 503 and "retry" in locked.json()["detail"]
        assert refused.status_code == 503  # not even the quarantine could be written
        assert inbox_rows(inbox_path, "select count(*) from inbox_events") == [(0,)]
        assert inbox_rows(inbox_path, "select count(*) from inbox_quarantine") == [(0,)]
        retried = httpx.post(url, content=body, headers=headers, timeout=60)
    assert retried.status_code == 200 and retried.json()["status"] == "stored"
    assert inbox_rows(inbox_path, "select count(*) from inbox_events") == [(1,)]


# -- the fuzz -------------------------------------------------------------------------------------


@functools.cache
def spec_payloads() -> tuple[dict[str, Any], ...]:
    """410 webhook bodies drawn from the spec's 41 payload schemas by the emulator's spec data
    mode (hypothesis-jsonschema, made wild: odd enums, dates, timezones, numbers beyond 64
    bits), decoded with every integer exact."""
    return tuple(json.loads(body) for body, _, _ in spec_webhook_bodies(410, seed=29))


class Deep:
    """A JSON array nested ``depth`` levels, written out by :func:`encode` (the standard
    library's encoder stops at Python's recursion limit). orjson reads up to 1024 levels."""

    def __init__(self, depth: int) -> None:
        self.depth = depth


def encode(value: Any, ascii_only: bool) -> bytes:
    """``value`` as JSON text: integers of any size, :class:`Deep` arrays spliced in."""
    deep: list[int] = []

    def mark(obj: Any) -> Any:
        if isinstance(obj, Deep):
            deep.append(obj.depth)
            return f"\x01deep{len(deep) - 1}\x01"
        raise TypeError(type(obj).__name__)

    text = json.dumps(value, ensure_ascii=ascii_only, default=mark)
    for i, depth in enumerate(deep):
        marker = json.dumps(f"\x01deep{i}\x01", ensure_ascii=ascii_only)
        text = text.replace(marker, "[" * depth + "]" * depth, 1)
    return text.encode("utf-8")


HOSTILE_SCALARS = [
    2**63,
    2**64,
    -(2**63) - 1,
    10**32,
    99999999999999999999999999999999,
    -5,
    0,
    1.5e18,
    1e308,
    -1e308,
    5e-324,
    -0.0,
    1_700_000_000.5,
    True,
    False,
    None,
    "",
    "\x00",
    "a\x00b",
    "\u202eevil",
    "Zoë 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "x" * 3000,
    "1700000000",
    [],
    {},
]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
hostile = st.one_of(
    st.sampled_from(HOSTILE_SCALARS),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
    st.integers(min_value=900, max_value=1100).map(Deep),
    json_values,
)
times = st.one_of(
    st.sampled_from(
        [
            99999999999999999999999999999999,
            2**63,
            2**64,
            -(2**63) - 1,
            -5,
            0,
            1.5e18,
            1_700_000_000_000,
            1_700_000_000.5,
            "1700000000",
            None,
            True,
        ]
    ),
    st.integers(min_value=900_000_000, max_value=4_200_000_000),
    hostile,
)
ENVELOPE = {
    "eventType": st.one_of(
        st.sampled_from(sorted(CATALOGUE)),
        st.sampled_from(["", "brand_new_event", "clock_in\x00", "y" * 300]),
        hostile,
    ),
    "eventTimestamp": times,
    "evnetTimestamp": times,
    "requestId": st.one_of(st.sampled_from(SHARED_REQUEST_IDS), st.text(max_size=300), hostile),
    "company": hostile,
    "activityType": hostile,
    "webhookVersion": hostile,
}
CONTENT_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "",
    "application/octet-stream",
    "*/*",
    "application/json; charset=latin-1",
]


def containers(value: Any) -> list[tuple[Any, Any]]:
    """Every ``(container, key or index)`` inside a decoded JSON value (iteratively)."""
    found: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        slots = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in slots:
            found.append((node, key))
            if isinstance(child, dict | list):
                stack.append(child)
    return found


@st.composite
def mutated_payload(draw: st.DrawFn) -> bytes:
    """A spec-drawn webhook body with envelope fields set, dropped or kept, and up to three
    values anywhere in it replaced by a value of another type or range."""
    payload = json.loads(json.dumps(draw(st.sampled_from(spec_payloads()))))  # a deep copy
    for name, values in ENVELOPE.items():
        action = draw(st.sampled_from(["keep"] * 5 + ["drop", "set"]))
        if action == "drop":
            payload.pop(name, None)
        elif action == "set":
            payload[name] = draw(values)
    slots = containers(payload)
    for _ in range(draw(st.integers(0, 3)) if slots else 0):
        node, key = draw(st.sampled_from(slots))
        node[key] = draw(hostile)
    return encode(payload, ascii_only=draw(st.booleans()))


@st.composite
def deliveries(draw: st.DrawFn) -> tuple[bytes, str | None]:
    """One request: a body (mostly spec-drawn and mutated; else random bytes, a JSON value that
    is not an object, a cut-off body, or one over the size limit) and a ``Content-Type``."""
    kind = draw(st.integers(0, 19))
    if kind <= 15:
        body = draw(mutated_payload())
    elif kind == 16:
        body = draw(st.binary(max_size=300))
    elif kind == 17:
        body = encode(draw(json_values.filter(lambda v: not isinstance(v, dict))), True)
    elif kind == 18:
        whole = draw(mutated_payload())
        body = whole[: draw(st.integers(0, max(0, len(whole) - 1)))]
    else:
        body = draw(mutated_payload()) + b" " * (LIMIT + draw(st.integers(1, 4096)))
    content_type = draw(
        st.none()
        | st.sampled_from(CONTENT_TYPES)
        # any printable ASCII an HTTP client sends as a header value (no outer whitespace)
        | st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=300).map(str.strip)
    )
    return body, content_type


class FuzzLedger:
    """What the fuzz sent and where each body ended, read back from the inbox as it goes."""

    def __init__(self, inbox_path: Path) -> None:
        self.inbox_path = inbox_path
        self.deliveries: Counter[bytes] = Counter()
        self.statuses: Counter[int] = Counter()
        self.in_inbox: Counter[bytes] = Counter()
        self.in_quarantine: Counter[tuple[bytes, int]] = Counter()
        self._last = (0, 0)

    def read_inbox(self) -> None:
        """Count the inbox rows and quarantined bodies stored since the last read."""
        last_event, last_refused = self._last
        with sqlite3.connect(self.inbox_path) as con:
            events = con.execute(
                "select inbox_id, body from inbox_events where inbox_id > ?", (last_event,)
            ).fetchall()
            refused = con.execute(
                "select quarantine_id, body, body_bytes from inbox_quarantine "
                "where quarantine_id > ?",
                (last_refused,),
            ).fetchall()
        self.in_inbox.update(bytes(body) for _, body in events)
        self.in_quarantine.update((bytes(body), size) for _, body, size in refused)
        self._last = (
            max([last_event, *(r[0] for r in events)]),
            max([last_refused, *(r[0] for r in refused)]),
        )

    def check(self, body: bytes, status: int) -> None:
        """The body's answer and where it is agree: a 200 is in the inbox exactly once and not in
        the quarantine; a refusal is in the quarantine once per delivery (the first ``LIMIT``
        bytes of an oversized one), never in the inbox."""
        stored = self.in_inbox[body]
        kept = self.in_quarantine[(body[:LIMIT], len(body))]
        assert status < 500, f"{status} for {body[:300]!r}"
        if status == 200:
            assert (stored, kept) == (1, 0), (body[:300], stored, kept)
        else:
            assert status in (413, 422), (status, body[:300])
            assert (stored, kept) == (0, self.deliveries[body]), (body[:300], stored, kept)


async def post_all(url: str, batch: Sequence[tuple[bytes, str | None]]) -> list[int]:
    """POST every body at once; the HTTP status of each (a request that got no answer raises)."""
    limits = httpx.Limits(max_connections=len(batch), max_keepalive_connections=len(batch))
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:

        async def one(body: bytes, content_type: str | None) -> int:
            headers = {"x-webhook-token": TOKEN}
            if content_type is not None:
                headers["content-type"] = content_type
            return (await client.post(url, content=body, headers=headers)).status_code

        return list(await asyncio.gather(*(one(body, ct) for body, ct in batch)))


@pytest.mark.slow
def test_fuzz_no_body_gets_a_5xx_each_ends_in_the_inbox_or_quarantine_and_the_fold_loads_all(
    tmp_path, warehouse
):
    inbox_path = tmp_path / "inbox.sqlite3"
    app = receiver_app(inbox_path, timeout=30, max_body_bytes=LIMIT)
    ledger = FuzzLedger(inbox_path)
    spec_payloads()  # drawn once, before hypothesis times anything

    with BackgroundServer(app) as server:
        url = server.url + PATH

        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            print_blob=True,
        )
        @given(st.lists(deliveries(), min_size=BATCH, max_size=BATCH, unique_by=lambda d: d[0]))
        def fuzz(batch: list[tuple[bytes, str | None]]) -> None:
            statuses = asyncio.run(post_all(url, batch))
            ledger.deliveries.update(body for body, _ in batch)
            ledger.statuses.update(statuses)
            ledger.read_inbox()
            for (body, _), status in zip(batch, statuses, strict=True):
                ledger.check(body, status)

        fuzz()

    distinct = len(ledger.deliveries)
    stored = sum(ledger.in_inbox.values())
    quarantined = sum(ledger.in_quarantine.values())
    server_errors = sum(n for status, n in ledger.statuses.items() if status >= 500)
    print(
        f"\nfuzz: {sum(ledger.deliveries.values()):,} bodies sent ({distinct:,} distinct), "
        f"{stored:,} stored as events, {quarantined:,} quarantined, {server_errors} 5xx; "
        f"statuses {dict(sorted(ledger.statuses.items()))}"
    )
    assert distinct >= 5000 and server_errors == 0
    assert stored > 2500 and quarantined > 1000  # both paths well exercised
    assert stored == len(ledger.in_inbox)  # no body stored twice
    assert (
        inbox_rows(inbox_path, "select count(*) from inbox_events where conflict_of is not null")[
            0
        ][0]
        > 0
    )

    summary = run_fold(project=resolve(inbox_url=f"sqlite:///{inbox_path}"))
    assert summary.events == stored and summary.quarantined == quarantined
    assert query(warehouse, "select count(*), count(distinct event_key) from webhooks.events") == [
        (stored, stored)
    ]
    assert query(warehouse, "select count(*) from webhooks.quarantine") == [(quarantined,)]
    unreadable = query(warehouse, "select count(*) from webhooks.events where payload is null")
    assert unreadable == [(0,)]  # every body the receiver stored is JSON the warehouse holds
