"""Webhook ingest end to end: the receiver as a real HTTP server on 127.0.0.1, a real SQLite inbox,
the fold into a real DuckDB warehouse."""

from __future__ import annotations

import asyncio
import functools
import json
import random
import threading
import time
from datetime import UTC, datetime

import httpx
import orjson
import psycopg2
import pytest
from conftest import SPEC_FILE, query
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from support.webhooks import deliver, hook_url, receivers

from emulator.server import BackgroundServer
from emulator.webhooks import build_burst, make_event, send_burst, signature_headers
from inbox import CATALOGUE, FAMILIES, Inbox
from pipelines.fold import run_fold
from pipelines.models import build_models
from receiver import PATH, ReceiverConfig, ReceiverConfigError, create_app
from sources.configuration import resolve

SPEC = json.loads(SPEC_FILE.read_text())
REGISTRY = Registry().with_resource(
    "spec", Resource.from_contents(SPEC, default_specification=DRAFT202012)
)
TOKEN = "wh-token-7c1e"
SECRET = "whsec_" + "c2VjcmV0LWtleS1mb3ItdGVzdHM="  # base64 of "secret-key-for-tests"


def spec_schema_names() -> set[str]:
    names = set()
    for operations in SPEC["webhooks"].values():
        for operation in operations.values():
            ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
            names.add(ref.rsplit("/", 1)[-1])
    return names


def errors_against(payload: dict, schema: str) -> list[str]:
    validator = Draft202012Validator(
        {"$ref": f"spec#/components/schemas/{schema}"}, registry=REGISTRY
    )
    return [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(payload)]


@pytest.fixture
def receiver(tmp_path):
    """Start receivers: ``receiver(**settings) -> (url, inbox_url)``; all stop at teardown."""
    with receivers(tmp_path, TOKEN) as start:
        yield lambda **settings: (lambda s: (hook_url(s), s.inbox_url))(start(**settings))


post = functools.partial(deliver, token=TOKEN)


def inbox_rows(inbox_url: str, sql: str) -> list[tuple]:
    inbox = Inbox(inbox_url)
    try:
        with inbox.engine.connect() as conn:
            return [tuple(r) for r in conn.exec_driver_sql(sql)]
    finally:
        inbox.close()


# -- catalogue and payloads --------------------------------------------------------------------


def test_catalogue_covers_every_spec_event_and_the_newer_ones():
    in_spec = {e.schema for e in CATALOGUE.values() if e.schema}
    assert in_spec == spec_schema_names()
    assert sum(1 for e in CATALOGUE.values() if e.schema) == len(SPEC["webhooks"]) == 41
    newer = {e.event_type for e in CATALOGUE.values() if e.schema is None}
    assert newer == {
        "user_add_request", "user_edit_request", "user_delete_request",
        "admin_declined_add_request", "admin_declined_edit_request",
        "admin_declined_delete_request", "admin_day_locked", "admin_day_unlocked",
        "user_timesheet_submitted", "user_timesheet_unsubmitted", "user_timesheet_approved",
        "user_timesheet_reopened",
    }  # fmt: skip
    assert {e.family for e in CATALOGUE.values()} == set(FAMILIES)
    for name, operations in SPEC["webhooks"].items():  # spec defaults agree with the catalogue
        schema = operations["post"]["responses"]["200"]["content"]["application/json"]["schema"]
        props = SPEC["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]["properties"]
        default = props.get("eventType", {}).get("default")
        if default:
            assert CATALOGUE[default].title == name


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_sender_payloads_validate_against_the_spec(version):
    rng = random.Random(5)
    for event in CATALOGUE.values():
        payload = make_event(event.event_type, rng, shift_version=version)
        if event.schema:
            assert errors_against(payload, event.schema) == [], event.event_type
            assert payload["evnetTimestamp"] == payload["eventTimestamp"]
        else:  # newer events carry only eventTimestamp (reference README)
            assert "evnetTimestamp" not in payload
    broken = make_event("clock_in", rng)
    del broken["userId"]
    assert errors_against(broken, CATALOGUE["clock_in"].schema)  # the check can fail


def test_key_fields_sit_where_the_catalogue_says():
    from inbox.envelope import key_fields
    from inbox.events import KEY_FIELDS

    rng = random.Random(2)
    optional = {  # key fields some events of a family do not carry
        "timesheet_period": {"date"},
        "chat": {"message_id"},
    }
    for event in CATALOGUE.values():
        found = key_fields(make_event(event.event_type, rng), event.family)
        expected = set(KEY_FIELDS[event.family])
        if event.family == "shift":  # created/updated carry data.shifts, deleted data.ids
            expected -= (
                {"deleted_ids"}
                if event.event_type != "shift_deleted"
                else {"slot_ids", "assigned_user_ids"}
            )
        assert expected - optional.get(event.family, set()) <= set(found) <= expected, (
            event.event_type
        )
        assert all(value not in (None, []) for value in found.values()), event.event_type
    availability = key_fields(make_event("availability_status_created", rng), "availability")
    assert isinstance(availability["availability_status_ids"], list)  # top level, not under data
    v2 = make_event("shift_created", rng, shift_version="v2")
    assert key_fields(v2, "shift")["slot_ids"] == [v2["data"]["shifts"][0]["id"]]


def test_shift_events_in_v1_and_v2_form():
    rng = random.Random(9)
    v1 = make_event("shift_created", rng, shift_version="v1")
    v2 = make_event("shift_created", rng, shift_version="v2")
    assert v1["webhookVersion"] == "v1" and len(v1["data"]["shifts"][0]["assignedUserIds"]) == 1
    assert ":" in v1["data"]["shifts"][0]["id"]
    assert v2["webhookVersion"] == "v2" and ":" not in v2["data"]["shifts"][0]["id"]
    deleted = make_event("shift_deleted", rng, shift_version="v2")
    assert deleted["data"]["ids"] and "shifts" not in deleted["data"]


# -- receiving and folding -----------------------------------------------------------------------


def test_every_event_type_goes_in_and_comes_out_with_family_type_and_utc_time(receiver, warehouse):
    url, inbox_url = receiver()
    rng = random.Random(3)
    sent = {}
    for event in CATALOGUE.values():
        payload = make_event(event.event_type, rng, now=1_790_000_000 + rng.randint(0, 10**6))
        assert post(url, orjson.dumps(payload)).status_code == 200
        sent[payload["requestId"]] = (event.family, event.event_type, payload["eventTimestamp"])
    legacy = {"requestId": "legacy-1", "company": "c", "eventType": "clock_out",
              "evnetTimestamp": 1_700_000_123, "activityType": "shift", "userId": 4}  # fmt: skip
    assert post(url, orjson.dumps(legacy)).status_code == 200
    sent["legacy-1"] = ("time_activity", "clock_out", 1_700_000_123)

    summary = run_fold(project=resolve(inbox_url=inbox_url))
    assert summary.events == len(CATALOGUE) + 1
    rows = query(
        warehouse,
        "select request_id, family, event_type, event_timestamp, is_known_type, "
        "payload->>'requestId', event_key, is_event_time_implausible from webhooks.events",
    )
    got = {r[0]: (r[1], r[2], int(r[3].timestamp())) for r in rows}
    assert got == sent
    assert all(r[3].utcoffset().total_seconds() == 0 for r in rows)  # UTC timestamps
    assert all(r[4] and r[5] == r[0] and not r[7] for r in rows)
    assert all(r[6].startswith(f"{r[0]}/{r[2]}/") for r in rows)  # requestId/eventType/digest
    when = {r[0]: r[3] for r in rows}["legacy-1"]
    assert when == datetime.fromtimestamp(1_700_000_123, UTC)


def test_duplicates_sequential_and_concurrent_are_stored_once(receiver, warehouse):
    url, inbox_url = receiver()
    rng = random.Random(4)
    first = orjson.dumps(make_event("clock_in", rng))
    for _ in range(3):
        assert post(url, first).status_code == 200
    second = orjson.dumps(make_event("shift_updated", rng))
    without_id = orjson.dumps({"eventType": "task_completed", "eventTimestamp": 1_700_000_000})

    async def burst():
        async with httpx.AsyncClient() as client:
            headers = {"x-webhook-token": TOKEN}
            return await asyncio.gather(
                *(client.post(url, content=b, headers=headers) for b in [second, without_id] * 3)
            )

    assert {r.status_code for r in asyncio.run(burst())} == {200}
    assert inbox_rows(inbox_url, "select count(*) from inbox_events") == [(3,)]
    run_fold(project=resolve(inbox_url=inbox_url))
    assert query(warehouse, "select count(*), count(distinct event_key) from webhooks.events") == [
        (3, 3)
    ]
    keys = {r[0] for r in query(warehouse, "select event_key from webhooks.events")}
    assert any(k.startswith("sha256:") for k in keys)  # no requestId: keyed by the body's hash


def test_refused_bodies_are_quarantined_and_auth_failures_store_nothing(receiver, warehouse):
    url, inbox_url = receiver(signing_secret=SECRET)
    good = orjson.dumps(make_event("clock_in", random.Random(1)))
    now = int(time.time())

    def signed(body: bytes, stamp: int = now) -> dict[str, str]:
        return signature_headers(SECRET, "msg-1", stamp, body)

    assert post(url, good, **signed(good)).status_code == 200
    assert post(url + f"?token={TOKEN}", good, token=None, **signed(good)).status_code == 200
    # authentication failures: 401, nothing stored anywhere
    assert post(url, good, token="wrong", **signed(good)).status_code == 401
    assert post(url, good, token=None, **signed(good)).status_code == 401
    assert post(url, good).status_code == 401  # no signature
    assert post(url, good, **signed(b"other body")).status_code == 401
    assert post(url, good, **signed(good, now - 301)).status_code == 401
    # malformed and oversized: refused with a reason and quarantined
    cases = {
        b"not json at all": (422, "not JSON"),
        b"[1, 2]": (422, "not an object"),
        b'{"company": "c", "data": {}}': (422, "no recognisable envelope"),
        # read two ways (the receiver's orjson keeps the last copy, DuckDB the first): refused
        b'{"eventType": "shift_deleted", "eventType": "user_updated", "eventTimestamp": 1}': (
            422,
            "repeats the key 'eventType'",
        ),
        b'{"eventType": "shift_deleted", "eventTimestamp": 1, "data": {"id": 1, "id": 2}}': (
            422,
            "repeats the key 'id'",
        ),
        b"{" + b" " * (1024 * 1024) + b"}": (413, "limit"),
    }
    for body, (status, reason) in cases.items():
        response = post(url, body, **signed(body))
        assert response.status_code == status and reason in response.json()["detail"]
    unknown = orjson.dumps({"eventType": "brand_new_event", "eventTimestamp": 1_700_000_000})
    assert post(url, unknown, **signed(unknown)).status_code == 200

    assert inbox_rows(inbox_url, "select count(*) from inbox_events") == [(2,)]
    assert inbox_rows(inbox_url, "select count(*) from inbox_quarantine") == [(6,)]
    summary = run_fold(project=resolve(inbox_url=inbox_url))
    assert summary.quarantined == 6
    refused = query(
        warehouse,
        "select status_code, body_bytes, is_truncated, octet_length(body) from webhooks.quarantine "
        "order by body_bytes",
    )
    assert [r[0] for r in refused] == [422, 422, 422, 422, 422, 413]
    repeated = query(warehouse, "select body from webhooks.quarantine where "
                     "reason like '%repeats the key%'")  # fmt: skip
    assert {body for (body,) in repeated} == {
        b for b in cases if b.count(b'"eventType"') == 2 or b.count(b'"id"') == 2
    }  # kept as it came
    assert refused[-1][1] > 1024 * 1024 and refused[-1][2] and refused[-1][3] == 1024 * 1024
    assert refused[0][3] == refused[0][1]  # small bodies kept whole
    unknown_rows = query(
        warehouse,
        "select family, is_known_type from webhooks.events where event_type = 'brand_new_event'",
    )
    assert unknown_rows == [("unknown", False)]


def test_receiver_refuses_to_start_without_a_token(tmp_path):
    with pytest.raises(ReceiverConfigError, match="WEBHOOKS__TOKEN"):
        ReceiverConfig(token=None, inbox_url=f"sqlite:///{tmp_path / 'i.sqlite3'}")
    open_settings = ReceiverConfig(
        token=None, inbox_url=f"sqlite:///{tmp_path / 'i.sqlite3'}", allow_open=True
    )
    with BackgroundServer(create_app(open_settings)) as server:
        body = orjson.dumps({"eventType": "clock_in", "eventTimestamp": 1})
        assert httpx.post(server.url + PATH, content=body).status_code == 200
        assert httpx.get(server.url + "/healthz").json()["status"] == "ok"


def test_fold_twice_and_while_events_keep_arriving(receiver, warehouse):
    url, inbox_url = receiver()
    acknowledged: set[str] = set()
    done = threading.Event()

    def keep_sending():
        for seed in range(6):
            bodies = build_burst(300, seed=100 + seed, duplicate_rate=0.2)
            report = asyncio.run(send_burst(url, bodies, token=TOKEN, concurrency=8))
            acknowledged.update(report.acknowledged_keys)
        done.set()

    sender = threading.Thread(target=keep_sending)
    sender.start()
    folds = 0
    while not done.is_set():
        run_fold(project=resolve(inbox_url=inbox_url))
        folds += 1
    sender.join()
    last = run_fold(project=resolve(inbox_url=inbox_url))
    again = run_fold(project=resolve(inbox_url=inbox_url))
    assert folds >= 2, "the folds should have overlapped the sending"
    assert again.events == 0 and last.backlog == 0
    keys = [r[0] for r in query(warehouse, "select event_key from webhooks.events")]
    assert len(keys) == len(set(keys)) == len(acknowledged) == 1800
    assert set(keys) == acknowledged


def test_retention_prunes_folded_inbox_rows_only(receiver, warehouse):
    url, inbox_url = receiver()
    report = asyncio.run(send_burst(url, build_burst(50, seed=2), token=TOKEN))
    assert len(report.acknowledged_keys) == 50
    kept = run_fold(retention_days=7, project=resolve(inbox_url=inbox_url))
    assert kept.pruned == 0
    pruned = run_fold(retention_days=0, project=resolve(inbox_url=inbox_url))
    assert pruned.pruned == 50
    assert inbox_rows(inbox_url, "select count(*) from inbox_events") == [(0,)]
    assert query(warehouse, "select count(*) from webhooks.events") == [(50,)]


# -- event keys ----------------------------------------------------------------------------------


def test_events_sharing_a_request_id_are_all_stored_and_a_changed_body_is_its_own_event(
    receiver, warehouse
):
    url, inbox_url = receiver()
    rng = random.Random(11)
    # one admin action, two V1 shift events (one per assignment) with the same requestId
    first = make_event("shift_created", rng, shift_version="v1")
    second = dict(make_event("shift_created", rng, shift_version="v1"),
                  requestId=first["requestId"])  # fmt: skip
    answers = [post(url, orjson.dumps(p)) for p in (first, second)]
    assert [a.status_code for a in answers] == [200, 200]
    keys = [a.json()["eventKey"] for a in answers]
    assert all(a.json()["status"] == "stored" for a in answers) and keys[0] != keys[1]
    assert all(k.startswith(f"{first['requestId']}/shift_created/") for k in keys)

    again = post(url, orjson.dumps(first))  # the provider's retry: stored once
    assert again.status_code == 200
    assert again.json() == {"status": "already stored", "eventKey": keys[0]}

    # same request, type and shift slot, another body: not a retry, an event of its own
    changed = orjson.dumps(dict(first, eventTimestamp=first["eventTimestamp"] + 30))
    conflict = post(url, changed)
    assert conflict.status_code == 200 and conflict.json()["status"] == "stored"
    assert conflict.json()["keyConflictOf"] == keys[0]
    conflict_key = conflict.json()["eventKey"]
    assert conflict_key.startswith(keys[0] + "#") and conflict_key not in keys
    assert post(url, changed).json() == {"status": "already stored", "eventKey": conflict_key,
                                         "keyConflictOf": keys[0]}  # fmt: skip

    inbox = Inbox(inbox_url)
    assert inbox.counts()["events"] == 3 and inbox.counts()["key_conflicts"] == 1
    inbox.close()
    summary = run_fold(project=resolve(inbox_url=inbox_url))
    assert summary.events == 3 and summary.key_conflicts == 1
    rows = query(warehouse, "select event_key, request_id, conflict_of, event_timestamp "
                 "from webhooks.events order by event_key")  # fmt: skip
    assert [r[0] for r in rows] == sorted([*keys, conflict_key])
    assert {r[1] for r in rows} == {first["requestId"]}
    assert {r[0]: r[2] for r in rows} == {keys[0]: None, keys[1]: None, conflict_key: keys[0]}
    when = {r[0]: int(r[3].timestamp()) for r in rows}
    assert when[conflict_key] == when[keys[0]] + 30


def test_an_inbox_and_warehouse_from_before_identity_keys_keep_working(
    tmp_path, receiver, warehouse, monkeypatch
):
    """Rows stored under the old keys (requestId alone), without the new inbox columns, folded
    into a warehouse without the new columns: their retries are recognised, the new columns
    are added, and the models flag the old rows from their payload."""
    import sources.webhooks.source

    inbox_url = f"sqlite:///{tmp_path / 'inbox0.sqlite3'}"  # where receiver() puts its first
    old = Inbox(inbox_url)  # the inbox as it was: no request_id, flag or conflict_of columns
    with old.engine.begin() as conn:
        for column in ("request_id", "is_event_time_implausible", "conflict_of"):
            conn.exec_driver_sql(f"alter table inbox_events drop column {column}")
    rng = random.Random(12)
    retried = make_event("clock_in", rng)
    implausible = dict(make_event("clock_out", rng), eventTimestamp=1_500_000_000_000_000_000)
    implausible.pop("evnetTimestamp")
    with old.engine.begin() as conn:  # stored by the old receiver: keyed by requestId alone
        for payload in (retried, implausible):
            conn.exec_driver_sql(
                "insert into inbox_events (event_key, event_type, family, is_known_type, "
                "event_timestamp, received_at, body) values (?, ?, 'time_activity', 1, ?, ?, ?)",
                (payload["requestId"], payload["eventType"], payload["eventTimestamp"],
                 time.time(), orjson.dumps(payload)),
            )  # fmt: skip
    old.close()
    # ... and folded by the old fold: a warehouse table without the new columns
    new_columns = ["request_id", "is_event_time_implausible", "conflict_of",
                   "is_payload_unreadable", "payload_text", "account"]  # fmt: skip
    current = sources.webhooks.source.event_batch
    monkeypatch.setattr(
        sources.webhooks.source,
        "event_batch",
        lambda rows, nul=True: current(rows, nul).drop_columns(new_columns),
    )
    assert run_fold(project=resolve(inbox_url=inbox_url)).events == 2
    monkeypatch.setattr(sources.webhooks.source, "event_batch", current)

    url, opened_url = receiver()  # opening the inbox adds the new columns
    assert opened_url == inbox_url
    again = post(url, orjson.dumps(retried))
    assert again.json() == {"status": "already stored", "eventKey": retried["requestId"]}
    other = dict(make_event("clock_in", rng), requestId=retried["requestId"])
    assert post(url, orjson.dumps(other)).json()["status"] == "stored"

    assert run_fold(project=resolve(inbox_url=inbox_url)).events == 1
    rows = query(warehouse, "select event_key, request_id, event_timestamp, "
                 "is_event_time_implausible from webhooks.events")  # fmt: skip
    assert len(rows) == 3
    by_key = {r[0]: r[1:] for r in rows}
    assert by_key[retried["requestId"]] == (None, by_key[retried["requestId"]][1], None)
    assert by_key[implausible["requestId"]] == (None, None, None)  # folded before the flag
    (new_key,) = set(by_key) - {retried["requestId"], implausible["requestId"]}
    assert by_key[new_key][0] == retried["requestId"] and by_key[new_key][2] is False
    accounts = dict(query(warehouse, "select event_key, account from webhooks.events"))
    assert accounts == {retried["requestId"]: None, implausible["requestId"]: None,
                        new_key: "default"}  # fmt: skip

    built = build_models(warehouse, select="stg_webhooks__time_activities", project=resolve())
    assert not built.failed
    staged = query(warehouse, "select event_key, is_event_time_implausible, event_at "
                   "from staging.stg_webhooks__time_activities")  # fmt: skip
    assert {r[0]: r[1] for r in staged} == {
        retried["requestId"]: False,
        implausible["requestId"]: True,
        new_key: False,
    }


# -- the fold and stored values ------------------------------------------------------------------

STORED_VALUES = {  # inbox rows as the receiver stores them, and two that other tools wrote
    "nul": b'{"eventType": "clock_in", "eventTimestamp": 1700000000, "note": "a\\u0000b"}',
    "escaped": b'{"eventType": "clock_in", "eventTimestamp": 1700000001, "note": "a\\\\u0000b"}',
    "huge": b'{"eventType": "clock_in", "eventTimestamp": 1700000002, "userId": 1' + b"0" * 40
    + b"}",
    "deep": b'{"eventType": "clock_in", "eventTimestamp": 1700000003, "x": ' + b"[" * 1000
    + b"]" * 1000 + b"}",
    "overflowing": b'{"eventType": "clock_in", "eventTimestamp": 99999999999999999999999999999}',
    "not utf-8": b'{"eventType": "clock_in", "note": "\xff\xfe"}',
    "not json": b"eventType=clock_in",
}  # fmt: skip
STORED_TIMES = {"nul": 1_700_000_000, "escaped": 1_700_000_001, "huge": 1_700_000_002,
                "deep": 1_700_000_003, "overflowing": 1.5e18}  # fmt: skip
"""``inbox_events.event_timestamp`` of those rows (1.5e18: stored before times were checked)."""


@pytest.mark.parametrize("destination", ["duckdb", "postgres"])
def test_the_fold_loads_every_stored_event_whatever_its_values(
    destination, tmp_path, warehouse, monkeypatch, request
):
    """Huge integers, NUL characters and deep nesting load as sent; an event time that is not
    plausible and a body the warehouse cannot hold as JSON (not UTF-8 JSON; U+0000 in
    PostgreSQL's jsonb) load as NULL with a flag, the body's text kept."""
    from support.servers import fresh_database

    from inbox.tables import events_table

    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    inbox = Inbox(inbox_url)
    with inbox.engine.begin() as conn:  # rows as stored, including a pre-flag implausible time
        for name, body in STORED_VALUES.items():
            conn.execute(events_table.insert().values(
                event_key=name, event_type="clock_in", family="time_activity",
                is_known_type=True, received_at=time.time(), body=body,
                event_timestamp=STORED_TIMES.get(name),
            ))  # fmt: skip
    inbox.close()
    if destination == "postgres":
        url = fresh_database(request.getfixturevalue("postgres"), "fold_values")
        monkeypatch.setenv("WFM_SYNC_DESTINATION", "postgres")
        monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", url)
    summary = run_fold(project=resolve(inbox_url=inbox_url))
    sql = (
        "select event_key, event_timestamp is null, is_event_time_implausible, "
        "is_payload_unreadable, payload is null, payload_text from webhooks.events"
    )
    if destination == "postgres":
        with psycopg2.connect(url) as connection, connection.cursor() as cursor:
            cursor.execute(sql)
            rows = {r[0]: r[1:] for r in cursor.fetchall()}
    else:
        rows = {r[0]: r[1:] for r in query(warehouse, sql)}
    assert summary.events == len(STORED_VALUES) == len(rows)
    unreadable = {"not utf-8", "not json"} | ({"nul"} if destination == "postgres" else set())
    assert (
        {k for k, r in rows.items() if r[2]} == unreadable == {k for k, r in rows.items() if r[3]}
    )
    assert all(rows[k][4].startswith(('{"eventType"', "eventType=")) for k in unreadable)
    assert {k for k, r in rows.items() if r[1]} == {"overflowing"}  # stored before the flag
    assert {k for k, r in rows.items() if r[0]} == {"overflowing", "not utf-8", "not json"}
    assert summary.unreadable_payloads == len(unreadable) and summary.implausible_times == 1
