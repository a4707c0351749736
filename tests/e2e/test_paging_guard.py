"""A listing that does not end fails its stream after a few pages, instead of spending the day's
request budget (issue: 1,366 requests and 673,500 "users" in 90 s for an account of 2,000). The
client pages through a transport serving hostile answers of ``GET /users/v1/users``."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from conftest import NOW, account_project, query

from sources.connecteam import ConnecteamAPIError
from sources.connecteam.client import ConnecteamClient
from sources.connecteam.registry import STREAMS

USERS = STREAMS["users"]
LIMIT = USERS.max_limit or 0


def users(first: int, count: int) -> list[dict[str, Any]]:
    return [{"userId": first + i, "firstName": f"U{first + i}"} for i in range(count)]


def listing(page: Answer, **options: Any) -> tuple[list[int], Exception | None, int]:
    """Page through users served by ``page``: the offsets asked for, what the client raised
    (``None``: the listing ended), and the records read."""
    asked: list[int] = []

    def handle(request: httpx.Request) -> httpx.Response:
        offset = int(request.url.params.get("offset", 0))
        asked.append(offset)
        return httpx.Response(200, json={"data": {"users": page(offset)}, **page.extra(offset)})

    client = ConnecteamClient(
        "http://127.0.0.1:9", api_key="k", transport=httpx.MockTransport(handle),
        max_in_flight=1, **options,
    )  # fmt: skip
    read = 0
    try:
        for records in client.paginate(USERS):
            read += len(records)
    except ConnecteamAPIError as exc:
        return asked, exc, read
    return asked, None, read


class Answer:
    """A hostile listing: ``records(offset)``, and ``paging.total`` when given."""

    def __init__(self, records: Any, total: int | None = None) -> None:
        self.records, self.total = records, total

    def __call__(self, offset: int) -> list[dict[str, Any]]:
        return self.records(offset)

    def extra(self, offset: int) -> dict[str, Any]:
        return {"paging": {"offset": offset, "total": self.total}} if self.total else {}


class GrowingTotal(Answer):
    """New ids on every page, and a ``paging.total`` always two pages ahead."""

    def extra(self, offset: int) -> dict[str, Any]:
        return {"paging": {"offset": offset, "total": offset + 2 * LIMIT}}


@pytest.mark.parametrize(
    ("answer", "options", "pages", "said"),
    [
        (Answer(lambda at: users(1000, LIMIT)), {}, 2, "repeats the one before"),
        (Answer(lambda at: list(reversed(users(1000, LIMIT)))
                if at // LIMIT % 2 else users(1000, LIMIT)), {}, 2, "listed before"),
        (Answer(lambda at: users(1000 + at, LIMIT)), {"max_pages": 7}, 8, "passed 7 pages"),
        (GrowingTotal(lambda at: users(1000 + at, LIMIT)), {}, 101, "passed 100 pages"),
    ],
    ids=["same-page", "same-ids", "new-ids-no-total", "new-ids-growing-total"],
)  # fmt: skip
def test_a_listing_that_does_not_end_fails_naming_the_endpoint(answer, options, pages, said):
    asked, raised, _ = listing(answer, **options)
    assert isinstance(raised, ConnecteamAPIError), (len(asked), raised)
    assert len(asked) == pages, asked[:5]
    assert raised.endpoint == "/users/v1/users" and said in str(raised)


def test_an_honest_listing_reads_every_page_once():
    """2,000 users, then a short page: every record once, one request per page."""
    honest = Answer(lambda at: users(1000 + at, max(0, min(LIMIT, 2000 - at))))
    asked, raised, read = listing(honest)
    assert (raised, read) == (None, 2000)
    assert asked == list(range(0, 2000 + 1, LIMIT))


def test_an_endless_listing_without_a_total_stops_at_ten_times_the_last_run(tmp_path, monkeypatch):
    """Without ``paging.total`` the bound is ten times the pages of the stream's largest listing
    in the last run that loaded (at least 100), not ``MAX_PAGES``' 2,000: a sync of 30 users,
    then one whose every page brings new ids, stops at page 101 with its stream failed and the
    users loaded before kept."""
    from pipelines.sync import run_sync

    monkeypatch.setenv("WFM_SYNC_NOW", str(NOW))
    monkeypatch.setenv("RUNTIME__DLTHUB_TELEMETRY", "false")
    warehouse = tmp_path / "warehouse.duckdb"
    project = account_project(warehouse, "http://127.0.0.1:9", "k")
    requests = []
    for answer in (Answer(lambda at: users(1000 + at, max(0, 30 - at))),
                   Answer(lambda at: users(1000 + at, LIMIT))):  # fmt: skip
        asked: list[int] = []

        def handle(
            request: httpx.Request, page: Answer = answer, asked: list[int] = asked
        ) -> httpx.Response:
            asked.append(int(request.url.params.get("offset", 0)))
            return httpx.Response(200, json={"data": {"users": page(asked[-1])}})

        summary = run_sync(
            ["users"], project=project, transport=httpx.MockTransport(handle), max_in_flight=1
        )
        requests.append(len(asked))
    assert requests == [1, 101]
    failure = summary.failed_streams["users"]
    assert "passed 100 pages" in failure and "30 items" in failure, failure
    assert "largest listing last run" in failure, failure
    assert query(warehouse, "select count(*) from connecteam.users")[0][0] == 30
