"""An answer's body held within a bound of memory, and its records decoded whole or as a
stream (:mod:`sources.connecteam.answers`): both ways give the same records, from real bytes."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from sources.connecteam import answers
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


@pytest.mark.parametrize("streamed", [False, True])
def test_integers_past_64_bits_stay_exact_either_way(monkeypatch, streamed):
    """yajl refuses such integers; the streamed answer takes ijson's own parser then, as the
    whole one takes the standard library's (orjson would lose digits)."""
    monkeypatch.setattr(answers, "STREAM_FROM_BYTES", 0 if streamed else 1 << 30)
    big = 2**63 + 5
    content = json.dumps(
        {"meta": 10**30, "data": {"timeActivitiesByUsers": [{"userId": big, "x": 0.1}]}}
    ).encode()
    with body_of(content) as body:
        records = [item for batch in body_records(body, ACTIVITIES) for item in batch]
    assert records == [{"userId": big, "x": 0.1}]


def test_a_run_of_digits_across_two_chunks_is_found():
    with body_of(b"[" + b" " * 10 + b"1" * 19 + b"]") as body:
        assert answers._has_long_digits(body.file, chunk_bytes=16)
    with body_of(b"[" + b" " * 10 + b"1" * 18 + b"]") as body:
        assert not answers._has_long_digits(body.file, chunk_bytes=16)


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
