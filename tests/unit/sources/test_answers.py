"""An answer's body held within a bound of memory, and its records decoded whole or as a
stream (:mod:`sources.connecteam.answers`): both ways give the same records, from real bytes."""

from __future__ import annotations

import io
import json
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sources.connecteam import answers, json_stream
from sources.connecteam.answers import Body, body_records
from sources.connecteam.errors import ConnecteamAPIError
from sources.connecteam.registry import STREAMS

ACTIVITIES = STREAMS["time_activities"]
"""An unpaged stream: ``data.timeActivitiesByUsers``."""


def activities(users: int) -> dict[str, Any]:
    """An answer of ``users`` users with two shifts each (fractions, nested lists, text)."""
    return {
        "data": {
            "timeActivitiesByUsers": [
                {
                    "userId": user,
                    "shifts": [
                        {
                            "id": f"{user}-{n}",
                            "start": {"timestamp": 1795176000 + n},
                            "hours": 7.25,
                            "note": 'naïve "quoted"',
                        }
                        for n in range(2)
                    ],
                }
                for user in range(users)
            ]
        },
        "requestId": "r1",
    }


def body_of(content: bytes, pieces: int = 7) -> Body:
    """A body received as ``pieces`` chunks, as from the wire."""
    step = max(1, len(content) // pieces)
    return Body(content[i : i + step] for i in range(0, len(content), step))


def test_a_large_answer_is_streamed_in_batches_equal_to_the_whole(monkeypatch):
    answer = activities(6_000)
    content = orjson.dumps(answer)
    monkeypatch.setattr(answers, "IN_MEMORY_BYTES", 1 << 20)
    monkeypatch.setattr(answers, "STREAM_FROM_BYTES", len(content) - 1)
    with body_of(content) as body:
        assert body.size == len(content) > answers.IN_MEMORY_BYTES
        assert body.file._rolled  # type: ignore[attr-defined]  # past 1 MiB: on disk
        batches = list(body_records(body, ACTIVITIES))
    assert [len(b) for b in batches] == [answers.BATCH_ITEMS] * 12 + [0]
    assert [item for b in batches for item in b] == answer["data"]["timeActivitiesByUsers"]
    monkeypatch.setattr(answers, "STREAM_FROM_BYTES", len(content))  # now whole: one list
    with body_of(content) as body:
        assert list(body_records(body, ACTIVITIES)) == [answer["data"]["timeActivitiesByUsers"]]


def test_a_streamed_batch_ends_at_about_batch_chars_of_json(monkeypatch):
    """Wide records fill a batch by their text before BATCH_ITEMS: each batch but the last
    reaches BATCH_CHARS with its last record and not before it."""
    answer = activities(600)
    content = orjson.dumps(answer)
    monkeypatch.setattr(answers, "STREAM_FROM_BYTES", 0)
    monkeypatch.setattr(answers, "BATCH_CHARS", 20_000)
    with body_of(content) as body:
        batches = list(body_records(body, ACTIVITIES))
    records = answer["data"]["timeActivitiesByUsers"]
    assert [item for b in batches for item in b] == records
    assert len(batches) > 3 and all(len(b) < answers.BATCH_ITEMS for b in batches)
    for batch in batches[:-1]:
        texts = [len(orjson.dumps(item).decode()) + 1 for item in batch]  # chars, and a comma
        assert sum(texts) >= 20_000 > sum(texts[:-1]) - 2


def test_a_malformed_document_fails_without_being_read_whole(monkeypatch):
    """An unterminated string fails once MAX_VALUE_CHARS are unread; an item longer than a
    chunk but within the bound is read (the chunks grow with it)."""
    monkeypatch.setattr(json_stream, "CHUNK_BYTES", 16)
    monkeypatch.setattr(json_stream, "MAX_VALUE_CHARS", 1000)
    long_item = {"note": "x" * 900}
    content = json.dumps({"data": {"timeActivitiesByUsers": [long_item]}}).encode()
    reader = json_stream.ListReader(io.BytesIO(content))
    reader.open_list(("data", "timeActivitiesByUsers"))
    assert list(reader.items()) == [long_item]

    class Counted(io.BytesIO):
        read_bytes = 0

        def read(self, size: int | None = -1) -> bytes:
            data = super().read(size)
            Counted.read_bytes += len(data)
            return data

    content = b'{"data": {"timeActivitiesByUsers": ["' + b"x" * 100_000 + b"]}}"
    reader = json_stream.ListReader(Counted(content))
    reader.open_list(("data", "timeActivitiesByUsers"))
    with pytest.raises(json_stream.NotJSONError):
        list(reader.items())
    assert Counted.read_bytes < 5_000


@pytest.mark.parametrize("streamed", [False, True])
def test_integers_past_64_bits_stay_exact_either_way(monkeypatch, streamed):
    """orjson would lose their digits: the whole answer takes the standard library's decoder
    then, and the streamed one always does."""
    monkeypatch.setattr(answers, "STREAM_FROM_BYTES", 0 if streamed else 1 << 30)
    big = 2**63 + 5
    content = json.dumps(
        {"meta": 10**30, "data": {"timeActivitiesByUsers": [{"userId": big, "x": 0.1}]}}
    ).encode()
    with body_of(content) as body:
        records = [item for batch in body_records(body, ACTIVITIES) for item in batch]
    assert records == [{"userId": big, "x": 0.1}]


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    items=st.lists(JSON_VALUES, max_size=6),
    before=st.dictionaries(st.sampled_from(["requestId", "paging", "meta"]), JSON_VALUES),
    after=st.dictionaries(st.sampled_from(["tail", "x"]), JSON_VALUES),
    indent=st.sampled_from([None, 0, 2]),
    ascii_only=st.booleans(),
    chunk=st.integers(min_value=1, max_value=64),
)
def test_a_streamed_list_is_what_the_standard_library_decodes(
    items, before, after, indent, ascii_only, chunk
):
    """Any JSON items (integers past 64 bits, escapes, non-ASCII text), members before and
    after the list, any white space, and chunks that cut numbers, escapes and UTF-8 anywhere."""
    document = {**before, "data": {"other": before, "timeActivitiesByUsers": items}, **after}
    content = json.dumps(document, indent=indent, ensure_ascii=ascii_only).encode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_stream, "CHUNK_BYTES", chunk)
        reader = json_stream.ListReader(io.BytesIO(content))
        reader.open_list(("data", "timeActivitiesByUsers"))
        assert list(reader.items()) == json.loads(content)["data"]["timeActivitiesByUsers"]


@pytest.mark.parametrize(
    "content",
    [
        b'{"data": {"timeActivitiesByUsers": [1, 2]}} trailing',
        b'{"data": {"timeActivitiesByUsers": [1, 2]}',
        b'{"data": {"timeActivitiesByUsers": [1 2]}}',
        b'{"data": {"timeActivitiesByUsers": [1, 2], "x": }}',
        b'{"data": {"timeActivitiesByUsers": ["\xff"]}}',  # not UTF-8
    ],
)
def test_a_streamed_document_that_is_not_json_fails(content):
    reader = json_stream.ListReader(io.BytesIO(content))
    with pytest.raises(json_stream.NotJSONError):
        reader.open_list(("data", "timeActivitiesByUsers"))
        list(reader.items())
    with pytest.raises(ValueError):
        json.loads(content)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"data": {}}', "no list at data.timeActivitiesByUsers"),
        (b'{"data": {"timeActivitiesByUsers": {"item": {"userId": 1}}}}', "no list at"),
        (b'{"data": {"timeActivitiesByUsers": null}}', "no list at"),
        (b"[1, 2]", "not a JSON object"),
        (b"<html>Not here</html>", "not JSON"),
        (b'{"data": {"timeActivitiesByUsers": [{"userId": 1}, {"userId"', "not JSON"),
    ],
)
@pytest.mark.parametrize("streamed", [False, True])
def test_an_answer_without_its_list_fails_the_same_either_way(
    monkeypatch, content, reason, streamed
):
    monkeypatch.setattr(answers, "STREAM_FROM_BYTES", 0 if streamed else 1 << 30)
    with body_of(content) as body, pytest.raises(ConnecteamAPIError, match=reason) as raised:
        list(body_records(body, ACTIVITIES))
    assert "time-activities" in str(raised.value)


@pytest.mark.parametrize("long_integer", [False, True], ids=["orjson", "standard library"])
def test_an_answer_nested_too_deep_is_not_json_either_decoder(long_integer: bool) -> None:
    """Past the decoders' depth (orjson's 1,024 levels; the standard library's recursion), the
    answer is refused as not JSON (``ValueError``), whichever decoder reads it: a run of 19
    digits sends it to the standard library, whose ``RecursionError`` must not escape."""
    digits = b"1234567890123456789," if long_integer else b""
    content = b"[" + digits + b"[" * 100_000 + b"]" * 100_001
    with pytest.raises(ValueError):
        answers.decode_json(content)
