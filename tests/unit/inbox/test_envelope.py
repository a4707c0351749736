"""Reading one webhook payload's envelope (``inbox.envelope``): the plausible event time, the
event key (with or without ``requestId``, readable or hashed), the family from the catalogue, and
text fields made storable (NUL replaced, cut to their column). Pure functions on literal payloads;
the test starts nothing (no server, no database, no subprocess)."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from inbox.envelope import (
    EPOCH_MAX,
    EPOCH_MIN,
    MAX_KEY_CHARS,
    event_key,
    event_time,
    key_fields,
    plausible_time,
    read_envelope,
)

READABLE = re.compile(r"^(?P<request>.+)/(?P<type>[^/]*)/(?P<digest>[0-9a-f]{16})$")
"""``<requestId>/<eventType>/<16 hex>``: the documented shape of a readable key."""


def envelope_of(payload: dict[str, Any]) -> Any:
    """:func:`read_envelope` of ``payload`` sent as compact JSON."""
    return read_envelope(payload, json.dumps(payload).encode())


def test_plausible_time() -> None:
    """Integral numbers within 2000-01-01 (inclusive) .. 2100-01-01 (exclusive), else ``None``."""
    table: list[tuple[Any, int | None]] = [
        (EPOCH_MIN, 946_684_800),  # 2000-01-01: the first plausible second
        (EPOCH_MIN - 1, None),
        (EPOCH_MAX - 1, 4_102_444_799),  # the last second before 2100-01-01
        (EPOCH_MAX, None),  # 2100-01-01 itself is out (half-open range)
        (1_700_000_000.0, 1_700_000_000),  # a float without a fraction is kept
        (1_700_000_000.5, None),
        (1_700_000_000_000, None),  # milliseconds
        (-1_700_000_000, None),
        (True, None),
        ("1700000000", None),  # text, even of digits
        (None, None),
        (2**70, None),
        (float("nan"), None),
        (float("inf"), None),
    ]
    wrong = [(value, plausible_time(value)) for value, expected in table
             if plausible_time(value) != expected]  # fmt: skip
    assert wrong == []
    assert type(plausible_time(1_700_000_000.0)) is int


def test_event_time_prefers_eventTimestamp_and_falls_back_to_the_misspelled_one() -> None:
    both = {"eventTimestamp": 1_700_000_000, "evnetTimestamp": 1_700_000_999}
    assert event_time(both) == 1_700_000_000
    assert event_time({"eventTimestamp": "yesterday", "evnetTimestamp": 1_700_000_999}) == (
        1_700_000_999
    )
    assert event_time({"eventTimestamp": None}) is None
    assert event_time({}) is None


def test_without_a_requestId_the_key_is_the_hash_of_the_raw_body() -> None:
    raw = b'{"eventType":"clock_in"}'
    expected = "sha256:" + hashlib.sha256(raw).hexdigest()
    for request_id in (None, "", 42, ["r"]):
        payload = {"eventType": "clock_in", "requestId": request_id}
        assert event_key(payload, raw, "clock_in", "time_activity") == expected
    # the same JSON sent with other whitespace is another body: another key
    assert event_key({}, raw + b" ", None, "unknown") != expected
    env = read_envelope({"eventType": "clock_in", "requestId": 12}, raw)
    assert (env.event_key, env.request_id, env.legacy_key) == (expected, None, None)


def test_a_readable_key_carries_the_request_the_type_and_the_events_identity() -> None:
    def shift(slot: str, note: str = "", raw: bytes = b"{}") -> str:
        payload = {"requestId": "req-1", "eventType": "shift_created", "schedulerId": 9,
                   "activityType": note, "data": {"shifts": [{"id": slot}]}}  # fmt: skip
        return event_key(payload, raw, "shift_created", "shift")

    key = shift("slot-a")
    match = READABLE.match(key)
    assert match is not None
    assert (match["request"], match["type"]) == ("req-1", "shift_created")
    # V1 shift events: one request, one event per slot, each its own key
    assert shift("slot-b") != key
    # fields outside the family's key fields, and the raw bytes, do not change the key
    assert shift("slot-a", note="edited", raw=b'{"other": "bytes"}') == key


def test_a_key_too_long_or_holding_control_characters_is_hashed() -> None:
    """``<requestId>/clock_in/<16 hex>`` is len(requestId) + 26 characters: 154 characters of
    requestId make a key of exactly :data:`MAX_KEY_CHARS`, 155 one past it."""
    assert MAX_KEY_CHARS == 180

    def key(request_id: str) -> str:
        payload = {"requestId": request_id, "eventType": "clock_in"}
        return event_key(payload, b"{}", "clock_in", "time_activity")

    at_most = key("r" * 154)
    assert len(at_most) == 180 and READABLE.match(at_most)
    for hashed in (key("r" * 155), key("a\nb"), key("a\x00b")):
        assert re.fullmatch(r"key-sha256:[0-9a-f]{64}", hashed)
    assert key("r" * 155) != key("r" * 156)


def test_key_fields_nested_too_deep_to_write_do_not_crash_and_keep_events_apart() -> None:
    deep: Any = []
    for _ in range(50_000):
        deep = [deep]
    payload = {"requestId": "r", "eventType": "form_submission", "data": {"formId": deep}}
    one = event_key(payload, b"body one", "form_submission", "form")
    two = event_key(payload, b"body two", "form_submission", "form")
    assert READABLE.match(one) and READABLE.match(two)
    assert one != two  # the raw body stands in for the unwritable key fields


def test_key_fields_follow_the_catalogue_paths_and_leave_out_absent_values() -> None:
    availability = {
        "schedulerId": 9,
        "availabilityStatuses": [{"id": "a", "userId": 1}, {"id": "b"}, "not an object"],
    }
    assert key_fields(availability, "availability") == {
        "scheduler_id": 9,
        "availability_status_ids": ["a", "b"],
        "user_ids": [1],
    }
    assert key_fields({"schedulerId": 9, "availabilityStatuses": []}, "availability") == {
        "scheduler_id": 9
    }
    # user events carry ``data`` as an array; a ``data`` object instead has no users
    assert key_fields({"data": [{"userId": 1}, {"userId": 2}]}, "user") == {"user_ids": [1, 2]}
    assert key_fields({"data": {"userId": 1}}, "user") == {}
    assert key_fields({"data": {"formId": 3}}, "unknown") == {}


def test_a_catalogued_event_is_read_whole() -> None:
    payload = {"requestId": "req-7", "company": "Acme", "eventType": "clock_in",
               "eventTimestamp": 1_700_000_000, "activityType": "shift", "userId": 5,
               "timeClockId": 3, "timeActivityId": "ta-1"}  # fmt: skip
    env = envelope_of(payload)
    assert (env.event_type, env.family, env.is_known_type) == ("clock_in", "time_activity", True)
    assert (env.event_timestamp, env.is_event_time_implausible) == (1_700_000_000, False)
    assert (env.company, env.activity_type, env.webhook_version) == ("Acme", "shift", None)
    assert env.request_id == "req-7" and env.legacy_key == "req-7"
    assert env.event_key.startswith("req-7/clock_in/") and env.recognisable


def test_an_unknown_type_or_an_implausible_time_is_kept_and_flagged() -> None:
    made_up = envelope_of({"eventType": "made_up", "eventTimestamp": 1_700_000_000})
    assert (made_up.event_type, made_up.family, made_up.is_known_type) == (
        "made_up", "unknown", False,
    )  # fmt: skip
    empty = envelope_of({"eventType": "", "eventTimestamp": 1_700_000_000})
    assert (empty.event_type, empty.family) == (None, "unknown")
    assert empty.recognisable  # its event time makes it one
    # an implausible event time is flagged, not dropped
    env = envelope_of({"eventTimestamp": "yesterday"})
    assert env.event_timestamp is None and env.is_event_time_implausible
    assert env.recognisable  # an event time was sent, implausible or not
    nothing = envelope_of({"eventTimestamp": None, "evnetTimestamp": None, "company": "Acme"})
    assert not nothing.is_event_time_implausible and not nothing.recognisable


def test_text_fields_are_made_storable_and_cut_to_their_column() -> None:
    env = envelope_of({"requestId": "a\x00b", "company": "x" * 250, "activityType": {"a": 1},
                       "webhookVersion": "v" * 41, "eventType": 7})  # fmt: skip
    assert env.company == "x" * 199 + "\u2026"  # 200 characters, the column's width
    assert env.activity_type == '{"a": 1}'  # an object as JSON
    assert env.webhook_version == "v" * 39 + "\u2026"  # 40 characters
    assert env.event_type is None  # not a string: no event type
    assert env.request_id == "a\ufffdb"  # NUL replaced in the column, the body keeps it
    assert env.legacy_key is None  # a key holding NUL cannot be stored
    assert env.event_key.startswith("key-sha256:")
    fits = envelope_of({"company": "y" * 200, "webhookVersion": 2})
    assert fits.company == "y" * 200 and fits.webhook_version == "2"
