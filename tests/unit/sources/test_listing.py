"""The complete-listing guard of the source (``sources.connecteam.listing``) and the date
arithmetic of the windowed streams (``sources.connecteam.windows``): whether a listing read page
by page is one consistent view (``paging.total`` agreeing or not, several pages without one),
what may then be marked deleted (a second pass where the consistency is unknown), the shared
once-per-run listing, the live mark, and the UTC date windows a run re-pulls. Pages are literal
lists; the test starts nothing (no client, no server, no warehouse)."""

from __future__ import annotations

import logging
import threading
from datetime import date
from typing import Any

import pytest

from sources.connecteam.listing import (
    PageCheck,
    all_consistent,
    complete_listing,
    confirmed_gone,
    once,
)
from sources.connecteam.windows import (
    Window,
    WindowDiff,
    date_windows,
    day_start,
    trailing_dates,
    utc_date,
)

Pages = list[tuple[list[dict[str, Any]], int | None]]


def consistency(pages: Pages) -> bool | None:
    return complete_listing(pages)[1]


def test_a_listing_is_consistent_when_its_total_agrees_or_one_answer_held_it_all() -> None:
    a, b, c = {"id": 1}, {"id": 2}, {"id": 3}
    assert consistency([]) is True  # no answer, nothing listed
    assert consistency([([a, b], None)]) is True  # one answer without a total
    assert consistency([([a, b], 3), ([c], 3)]) is True
    assert consistency([([], 0)]) is True
    assert consistency([([a, b], None), ([c], None)]) is None  # unknown: needs a second pass
    assert consistency([([a, b], 4), ([c], 4)]) is False  # one record skipped while paging
    assert consistency([([a, b], 3), ([c], 2)]) is False  # the total changed between pages
    # a listing read in parts is as consistent as its worst part
    assert all_consistent([]) is True
    assert all_consistent([True, True]) is True
    assert all_consistent([True, None]) is None
    assert all_consistent([None, False, True]) is False


def test_complete_listing_returns_every_record_in_order_and_reports_each_page() -> None:
    seen: list[int] = []
    pages: Pages = [([{"id": 1}, {"id": 2}], 3), ([{"id": 3}], 3)]
    records, consistent = complete_listing(iter(pages), on_page=seen.append)
    assert records == [{"id": 1}, {"id": 2}, {"id": 3}] and consistent is True
    assert seen == [2, 1]
    check = PageCheck()
    check.add(0, None)
    assert (check.pages, check.records, check.totals) == (1, 0, set())


def test_unseen_keys_are_gone_only_after_a_consistent_listing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    gone, seen = {"k3"}, {"k1", "k2"}
    with caplog.at_level(logging.WARNING, logger="sources.connecteam"):
        assert confirmed_gone("users", gone, seen, True) == {"k3"}
        assert caplog.text == ""
        assert confirmed_gone("users", gone, seen, False) == set()
        assert "paging.total changed or disagreed" in caplog.text
        assert confirmed_gone("shifts[9000]", gone, seen, None) == set()
        assert "shifts[9000]: the listing was not consistent (several pages" in caplog.text


def test_an_unknown_consistency_is_settled_by_a_second_pass_only_when_needed() -> None:
    asked: list[set[str]] = []

    def same(gone: set[str]) -> set[str]:
        asked.append(gone)
        return {"k1", "k2"}

    assert confirmed_gone("users", {"k3"}, {"k1", "k2"}, None, same) == {"k3"}
    assert asked == [{"k3"}]  # given the keys that look gone
    assert confirmed_gone("users", {"k3"}, {"k1", "k2"}, None, lambda _: {"k1"}) == set()
    assert confirmed_gone("users", set(), {"k1"}, None, same) == set()
    assert confirmed_gone("users", {"k3"}, {"k1"}, False, same) == set()  # known bad: no pass
    assert len(asked) == 1  # nothing looked gone, or nothing could help: no second pass


def test_once_shares_one_result_and_caches_no_failure() -> None:
    calls: list[int] = []

    def listing() -> list[int]:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the first call fails")
        return [len(calls)]

    shared = once(listing)
    with pytest.raises(RuntimeError):
        shared()
    results: list[list[int]] = []
    threads = [threading.Thread(target=lambda: results.append(shared())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [[2]] * 4 and len(calls) == 2
    assert all(result is results[0] for result in results)


def test_a_window_of_unknown_consistency_marks_nothing_gone_without_a_pass_that_agrees() -> None:
    diff = WindowDiff("shifts", "scheduler_id", 9, {"a": ("h", True), "b": ("h", True)})
    diff.changed([{"id": "a", "content_hash": "h"}])
    assert diff.vanished(consistent=False) == set()
    assert diff.vanished(consistent=None) == set()
    assert diff.vanished(consistent=None, reread=lambda _gone: {"a"}) == {"b"}
    assert diff.vanished(consistent=None, reread=lambda _gone: {"a", "b"}) == set()


def test_date_windows_split_an_inclusive_range_oldest_first() -> None:
    first = date(2024, 1, 1)
    assert date_windows(first, date(2024, 4, 1), 92) == [(first, date(2024, 4, 1))]  # 92 days
    assert date_windows(first, date(2024, 4, 2), 92) == [
        (first, date(2024, 4, 1)), (date(2024, 4, 2), date(2024, 4, 2)),
    ]  # fmt: skip
    assert date_windows(first, first, 45) == [(first, first)]
    assert date_windows(first, date(2023, 12, 31), 45) == []
    assert date_windows(first, date(2024, 1, 3), 1) == [
        (first, first), (date(2024, 1, 2), date(2024, 1, 2)), (date(2024, 1, 3), date(2024, 1, 3)),
    ]  # fmt: skip


def test_the_trailing_dates_and_utc_day_arithmetic() -> None:
    now = 1_795_132_800 + 12 * 3600  # 2026-11-20 12:00 UTC
    assert trailing_dates(now, 35, None) == (date(2026, 10, 16), date(2026, 11, 20))
    earlier = day_start(date(2026, 1, 5)) + 3600
    assert trailing_dates(now, 35, earlier) == (date(2026, 1, 5), date(2026, 11, 20))
    later = day_start(date(2026, 11, 1))
    assert trailing_dates(now, 35, later) == (date(2026, 10, 16), date(2026, 11, 20))
    assert day_start(date(2024, 1, 1)) == 1_704_067_200
    assert utc_date(1_704_067_200) == date(2024, 1, 1)
    assert utc_date(1_704_067_199) == date(2023, 12, 31)
    assert str(Window(1_704_067_200, 1_704_070_800)) == "2024-01-01 00:00..2024-01-01 01:00 UTC"
