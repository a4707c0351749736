"""Pure helpers of the source: windows, dates, change detection, rate-limit arithmetic."""

from __future__ import annotations

import logging

import pytest

from sources.arrow_hints import quiet_arrow_hint_warnings
from sources.connecteam.arrow_rows import ArrowRows
from sources.connecteam.listing import content_hash
from sources.connecteam.pacing import RateLimitState
from sources.connecteam.resources.scheduling import shift_row
from sources.connecteam.windows import WindowDiff, shift_window, to_epoch


def diff_shifts(scheduler_id, records, live):
    """One whole window diffed at once: ``(changed rows, vanished ids)``."""
    diff = WindowDiff("shifts", "scheduler_id", scheduler_id, live)
    return diff.changed(shift_row(scheduler_id, r) for r in records), diff.vanished()


def test_shift_window_is_hour_aligned_and_backfill_only_extends():
    now = 1_795_219_700.5
    window = shift_window(now, 30, 90)
    assert window.start % 3600 == 0 and window.end % 3600 == 0
    assert window.start <= now - 30 * 86400 < window.start + 3600
    assert window.end - 3600 < now + 90 * 86400 <= window.end
    assert shift_window(now, 30, 90, backfill_start=1_700_000_000).start == 1_700_000_000
    assert shift_window(now, 30, 90, backfill_start=int(now)).start == window.start


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-01-01", 1_704_067_200),
        ("2024-01-01T01:00:00Z", 1_704_070_800),
        ("1704067200", 1_704_067_200),
        (1_704_067_200, 1_704_067_200),
        (None, None),
        ("", None),
    ],
)
def test_to_epoch(value, expected):
    assert to_epoch(value) == expected


def test_to_epoch_names_the_setting_on_bad_input():
    with pytest.raises(ValueError, match="shifts_backfill_start"):
        to_epoch("last tuesday")


def test_content_hash_ignores_key_order():
    assert content_hash({"a": 1, "b": [1, 2]}) == content_hash({"b": [1, 2], "a": 1})
    assert content_hash({"a": 1}) != content_hash({"a": 2})


def test_diff_shifts_finds_changed_new_and_vanished():
    same = {"id": "s1:u", "assignedUserIds": [5], "startTime": 10, "endTime": 20}
    edited = {"id": "s2:u", "assignedUserIds": [6], "startTime": 10, "endTime": 20}
    new = {"id": "s3", "assignedUserIds": [], "startTime": 10, "endTime": 20}
    live = {
        "s1:u": (content_hash(same), True),
        "s2:u": ("stale", True),
        "gone-inside": ("x", True),
        "gone-but-crossing-window-edge": ("y", False),
    }
    changed, vanished = diff_shifts(7, [same, edited, new], live)
    assert [r["id"] for r in changed] == ["s2:u", "s3"]
    assert changed[0]["shift_id"] == "s2" and changed[0]["user_id"] == 6
    assert changed[1]["user_id"] is None and changed[1]["scheduler_id"] == 7
    assert vanished == {"gone-inside"}


def test_window_diff_page_by_page_equals_the_whole_window():
    records = [{"id": f"s{i}:u", "assignedUserIds": [i], "startTime": i, "endTime": i + 1}
               for i in range(7)]  # fmt: skip
    live = {"s0:u": (content_hash(records[0]), True), "s1:u": ("old", True), "gone": ("x", True)}
    diff = WindowDiff("shifts", "scheduler_id", 3, live)
    pages = (records[:3], records[3:6], records[6:])
    paged = [row for page in pages for row in diff.changed(shift_row(3, r) for r in page)]
    whole, vanished = diff_shifts(3, records, live)
    assert paged == whole and [r["id"] for r in paged] == [f"s{i}:u" for i in range(1, 7)]
    assert diff.vanished() == vanished == {"gone"}


def test_arrow_batches_regroup_pages_without_losing_or_reordering_rows():
    pages = [[{"id": i, "tags": [i]} for i in range(n, n + 3)] for n in range(0, 12, 3)]
    tables = list(ArrowRows("t").batches(iter(pages), rows=5))
    assert [t.num_rows for t in tables] == [6, 6]
    assert [r["id"] for t in tables for r in t.to_pylist()] == list(range(12))
    assert tables[0].to_pylist()[1]["tags"] == "[1]"  # nested values as JSON text
    assert list(ArrowRows("t").batches(iter([[], []]))) == []


def test_arrow_batches_of_wide_records_end_at_the_byte_budget():
    # pages of 10 records of ~10 KB: a 256 KB budget ends a batch after 3 pages, not 5,000 rows
    pages = [[{"id": n + i, "note": "x" * 10_000} for i in range(10)] for n in range(0, 1000, 10)]
    tables = list(ArrowRows("t").batches(iter(pages), max_bytes=256 * 1024))
    assert [t.num_rows for t in tables] == [30] * 33 + [10]
    assert [r["id"] for t in tables for r in t.to_pylist()] == list(range(1000))
    narrow = [[{"id": n + i} for i in range(100)] for n in range(0, 1000, 100)]
    assert [t.num_rows for t in ArrowRows("t").batches(iter(narrow), max_bytes=256 * 1024)] == [
        1000
    ]


def test_arrow_rows_fix_each_column_type_and_keep_misfits_aside():
    counter: dict[str, int] = {}
    rows = ArrowRows("t", {"when": "bigint", "meta": "json"}, counter)
    records = [
        {"id": 1, "when": 5, "code": "A", "ratio": 1, "meta": "x", "flag": True},
        {"id": 2, "when": "soon", "code": 7, "ratio": 2.5, "meta": {"a": 1}, "flag": 1},
        {"id": 3, "when": 2**63, "code": None, "ratio": 10**30, "meta": [2**70], "flag": None},
        {"id": 4, "when": 7.0, "code": "B", "extra": None},
    ]
    table = rows.to_arrow(records)
    assert str(table.schema.field("when").type) == "int64"
    assert str(table.schema.field("code").type) == "string"
    assert str(table.schema.field("ratio").type) == "int64"  # decided by the first value
    assert str(table.schema.field("extra").type) == "null"  # all null: decided later
    got = table.to_pylist()
    assert [r["when"] for r in got] == [5, None, None, 7]  # 7.0 is integral: kept as 7
    assert [r["meta"] for r in got] == ['"x"', '{"a":1}', "[" + str(2**70) + "]", None]
    assert [r["untyped_values"] for r in got] == [
        None,
        '{"when":"soon","code":7,"ratio":2.5,"flag":1}',
        '{"when": 9223372036854775808, "ratio": 1000000000000000000000000000000}',
        None,
    ]
    assert rows.untyped == counter["t"] == 6
    # the next batch keeps the types decided by the first, whatever its own first values are
    again = rows.to_arrow([{"id": 5, "code": 9, "ratio": 3}])
    assert again.to_pylist() == [
        {"id": 5, "code": None, "ratio": 3, "untyped_values": '{"code":9}'}
    ]


def test_a_field_colliding_with_the_key_field_never_takes_the_key_column():
    """A users record holding ``user_id`` beside its key ``userId``: both make column
    ``user_id``; the key field (which the item check read) keeps it, the stray field goes to
    ``untyped_values``; a stray ``is_deleted`` beside the provider's ``isDeleted`` keeps its
    column (the warehouse's spelling: the sync's own mark)."""
    rows = ArrowRows("users", {"user_id": "bigint"}, {})
    got = rows.to_arrow([{"user_id": 7, "userId": 1005, "isDeleted": True, "is_deleted": False}])
    assert got.to_pylist() == [{"userId": 1005, "is_deleted": False,
                                "untyped_values": '{"user_id":7,"isDeleted":true}'}]  # fmt: skip


def test_only_our_resources_arrow_hint_warning_is_dropped():
    logger = logging.getLogger("test-arrow-hints")
    seen: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())  # type: ignore[method-assign]
    logger.addHandler(handler)
    quiet_arrow_hint_warnings("shifts", logger_name="test-arrow-hints")
    quiet_arrow_hint_warnings("users", logger_name="test-arrow-hints")
    text = ", when merging arrow schema with dlt schema, several column hints were different."
    for resource in ("shifts", "users", "other"):
        logger.warning("In resource: %s%s", resource, text)
    logger.warning("something else entirely")
    assert seen == [f"In resource: other{text}", "something else entirely"]
    assert len(logger.filters) == 1


def test_rate_limit_budget_is_spent_locally_and_renewed_at_the_reset():
    state = RateLimitState()
    headers = {"x-ratelimit-minute-limit": "3", "x-ratelimit-minute-remaining": "1",
               "x-ratelimit-minute-reset": "1000"}  # fmt: skip
    state.update(headers)
    assert state.take(990.0) == 0  # the last request of the window
    assert state.take(990.0) == pytest.approx(10.05)  # spent: wait for the reset
    state.update({**headers, "x-ratelimit-minute-remaining": "2"})  # a late, older answer
    assert state.take(990.0) == pytest.approx(10.05)  # cannot give back spent budget
    assert state.take(1000.1) == 0  # a new window: the limit again, counted down locally
    assert state.take(1000.1) == 0 and state.take(1000.1) == 0
    assert state.take(1000.1) > 0  # three sent before any answer of the new window
    state.update(
        {**headers, "x-ratelimit-minute-reset": "940", "x-ratelimit-minute-remaining": "3"}
    )
    assert state.minute_reset is None or state.minute_reset != 940  # an answer from a past window
    state.update({"x-ratelimit-day-remaining": "0", "x-ratelimit-day-reset": "5000"})
    assert state.take(1061.0) == pytest.approx(3939.05)
