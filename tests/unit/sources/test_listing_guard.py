"""The paging of the client's list endpoints (``sources.connecteam.paging``): the requests one
listing spends (``N // limit + 1`` without ``paging.total``, ``max(1, ceil(N / limit))`` with
one, as :meth:`Paging.paginate` documents), the query it sends, a vanished parent's 404, the
item check on the way, and the guard that stops a listing that does not end
(:class:`ListingGuard`) with its bound. A small in-memory provider stands in for the HTTP client
(its :meth:`answer` returns bodies built from literal records): the test starts nothing (no
server, no socket, no pipeline)."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Mapping
from typing import Any

import pytest

from sources.connecteam.answers import Body
from sources.connecteam.errors import ConnecteamAPIError, ParentNotFoundError
from sources.connecteam.pacing import ClientStats
from sources.connecteam.paging import ListingGuard, ListingSizes, Paging
from sources.connecteam.registry import STREAMS, Stream

USERS = dataclasses.replace(STREAMS["users"], max_limit=3)
"""The users stream with pages of 3 (its key ``userId``, sorted by ``created_at``)."""
SHIFTS = dataclasses.replace(STREAMS["shifts"], max_limit=3)


class Provider(Paging):
    """Answers every page from ``records`` (``paging.total`` when ``total`` is not ``None``:
    ``True`` for the real count, or any literal value); every request is kept in ``asked``."""

    def __init__(
        self, records: list[Any], total: Any = True, in_flight: int = 1, status: int = 200
    ) -> None:
        self.records, self.total, self.status = records, total, status
        self.max_in_flight = in_flight
        self.listing_sizes = ListingSizes()
        self.stats = ClientStats()
        self._lock = threading.Lock()
        self.asked: list[tuple[str, dict[str, Any]]] = []

    def answer(
        self, method: str, path: str, params: Mapping[str, Any] | None = None, *,
        endpoint: str | None = None,
    ) -> Body:  # fmt: skip
        query = dict(params or {})
        with self._lock:
            self.asked.append((path, query))
        if self.status != 200:
            raise ConnecteamAPIError(endpoint or path, self.status, "Not Found")
        offset, limit = query["offset"], query["limit"]
        body: dict[str, Any] = {"data": {USERS.data_key: self.records[offset : offset + limit]}}
        if self.total is not None:
            total = len(self.records) if self.total is True else self.total
            body["paging"] = {"offset": offset, "total": total}
        return Body([json.dumps(body).encode()])

    def offsets(self) -> list[int]:
        return sorted(query["offset"] for _, query in self.asked)


def users(n: int) -> list[dict[str, Any]]:
    return [{"userId": i + 1} for i in range(n)]


def listed(provider: Provider, endpoint: Stream = USERS, **kwargs: Any) -> list[Any]:
    return [r for page in provider.paginate(endpoint, **kwargs) for r in page]


def test_the_requests_a_listing_spends() -> None:
    """Pages of 3: without a total, N // 3 + 1 requests; with one, max(1, ceil(N / 3)),
    asked ahead or not."""
    spent = {}
    for n, total in ((0, None), (6, None), (7, None), (0, True), (6, True), (7, True)):
        provider = Provider(users(n), total)
        assert listed(provider) == users(n)
        spent[n, total] = provider.offsets()
    assert spent == {
        (0, None): [0], (6, None): [0, 3, 6], (7, None): [0, 3, 6],
        (0, True): [0], (6, True): [0, 3], (7, True): [0, 3, 6],
    }  # fmt: skip
    # once the total is known, pages asked ahead (3 at once) stop at it and come in order
    provider = Provider(users(10), in_flight=3)
    pages = [[r["userId"] for r in page] for page in provider.paginate(USERS)]
    assert pages == [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10]]
    assert provider.offsets() == [0, 3, 6, 9]
    # a paging.total that is not an integer is ignored, not trusted
    for garbage in ("6", 6.0, False, None, {"n": 6}):
        provider = Provider(users(6), total=garbage)
        assert listed(provider) == users(6)
        assert provider.offsets() == [0, 3, 6]  # read to a short page, as without a total


def test_the_query_asks_the_largest_page_sorted_by_the_stable_key() -> None:
    provider = Provider(users(2))
    listed(provider, params={"userStatus": "all"})
    query = {"userStatus": "all", "sort": "created_at", "order": "asc", "limit": 3, "offset": 0}
    assert provider.asked == [("/users/v1/users", query)]
    own = Provider(users(2))
    listed(own, params={"sort": "modified_at"})
    assert own.asked[0][1] == {"sort": "modified_at", "limit": 3, "offset": 0}


def test_a_parent_id_is_one_path_segment_and_its_404_names_the_parent() -> None:
    provider = Provider([], status=404)
    with pytest.raises(ParentNotFoundError) as gone:
        listed(provider, SHIFTS, path_params={"schedulerId": "a/b c"})
    assert provider.asked[0][0] == "/scheduler/v1/schedulers/a%2Fb%20c/shifts"
    assert gone.value.parent == "schedulerId a/b c" and gone.value.status == 404
    top = Provider([], status=404)
    with pytest.raises(ConnecteamAPIError) as failed:
        listed(top)
    assert not isinstance(failed.value, ParentNotFoundError)


def test_items_the_spec_refuses_are_left_out_and_quarantined() -> None:
    provider = Provider([{"userId": 1}, {"userId": None}, {"userId": "3"}, {"userId": 1}])
    assert listed(provider) == [{"userId": 1}]
    assert provider.stats.quarantine.counts() == {"users": 3}
    assert provider.offsets() == [0, 3]  # the guard and the paging count the items as sent


def test_a_provider_answering_every_offset_alike_fails_the_stream_at_the_second_page() -> None:
    class Stuck(Provider):
        def answer(self, method: str, path: str, params: Mapping[str, Any] | None = None, *,
                   endpoint: str | None = None) -> Body:  # fmt: skip
            self.asked.append((path, dict(params or {})))
            return Body([json.dumps({"data": {"users": users(3)}}).encode()])

    provider = Stuck([], total=None)
    with pytest.raises(ConnecteamAPIError) as stuck:
        listed(provider)
    assert stuck.value.status == 200 and stuck.value.transient is False
    assert "at offset 3, the page repeats the one before it" in str(stuck.value)
    assert provider.offsets() == [0, 3]


def guard(max_pages: int = 2000, growth: int = 10, last: int | None = None) -> ListingGuard:
    return ListingGuard(USERS, max_pages, growth, last)


def test_a_full_page_of_ids_already_listed_fails_but_a_page_without_ids_does_not() -> None:
    g = guard()
    g.check(users(3), 0, None, 3)
    with pytest.raises(ConnecteamAPIError, match="at offset 3, every id of the page was listed"):
        g.check(list(reversed(users(3))), 3, None, 3)  # the same ids, another order
    no_ids = guard()
    no_ids.check([{"userId": None}] * 3, 0, None, 3)
    no_ids.check([{"name": "x"}, {"name": "y"}, "junk"], 3, None, 3)  # left to the item check
    short = guard()
    short.check(users(3), 0, None, 3)
    short.check(users(2), 3, None, 3)  # a short page ends the listing: not a repeat


def test_the_bound_is_the_least_of_the_settings_and_the_listings_own_size() -> None:
    """``growth`` times the pages of the first total (else of last run's size), at least 100;
    never more than ``max_pages``; ``growth`` 0 keeps ``max_pages`` only."""
    first = guard()
    first.check(users(3), 0, 50, 10)
    assert first.bound(10) == (100, "10 times the pages of 50 items, its first paging.total")
    big = guard()
    big.check(users(3), 0, 1_000, 10)
    assert big.bound(10)[0] == 1_000
    assert guard(max_pages=500).bound(10) == (500, "SOURCES__CONNECTEAM__MAX_PAGES")
    last_run = guard(last=300)
    assert last_run.bound(10) == (
        300, "10 times the pages of 300 items, the stream's largest listing last run",
    )  # fmt: skip
    assert guard(growth=0, last=300).bound(10)[0] == 2000
    assert guard(max_pages=100_000, last=10_001).bound(10)[0] == 10_010  # 1,001 pages, ceiled
    assert guard().bound(10)[0] == 2000


def test_a_listing_past_its_bound_fails_naming_both_settings() -> None:
    g = guard(max_pages=2)
    g.check(users(3), 0, None, 3)
    g.check([{"userId": 4}, {"userId": 5}, {"userId": 6}], 3, None, 3)
    with pytest.raises(ConnecteamAPIError) as past:
        g.check([{"userId": 7}, {"userId": 8}, {"userId": 9}], 6, None, 3)
    text = str(past.value)
    assert "at offset 6, the listing passed 2 pages (SOURCES__CONNECTEAM__MAX_PAGES)" in text
    assert "SOURCES__CONNECTEAM__MAX_PAGES (now 2)" in text
    assert "SOURCES__CONNECTEAM__MAX_PAGE_GROWTH (now 10)" in text
