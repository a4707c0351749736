"""Paging of the Connecteam client's list endpoints (:class:`Paging`, a base class of
:class:`~sources.connecteam.client.ConnecteamClient`).

Follows the provider's rules as published in its OpenAPI spec
(``spec/connecteam-openapi.json``) and documentation (``spec/provider-notes.md``):
paged lists take ``limit``/``offset``; a page shorter than ``limit`` is the last one, and when the
answer carries ``paging.total`` no page past it is asked for. A listing that does not end (a page
repeating the one before, a page of ids already listed, more pages than a bound) fails its
stream (:class:`ListingGuard`) instead of spending the day's request budget; the bound follows
the answer's ``paging.total`` and the stream's largest listing of the last run
(:class:`ListingSizes`). Once the total is
known the next pages are asked for ahead, up to ``max_in_flight`` at once
(:class:`~.fanout.PagesAhead`). A per-parent listing whose parent vanished answers 404:
:class:`~.errors.ParentNotFoundError`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from typing import Any, NoReturn
from urllib.parse import quote

import dlt

from .answers import Body, decode_object, page_records
from .contract import ItemCheck
from .errors import ConnecteamAPIError, ParentNotFoundError
from .fanout import PagesAhead
from .pacing import ClientStats
from .registry import Stream

logger = logging.getLogger("sources.connecteam.client")


class Paging:
    """The paging of :class:`~sources.connecteam.client.ConnecteamClient` (a base class: the
    client provides :meth:`get` and sets these attributes).

    Attributes:
        max_in_flight: Requests in flight at once at most; the pages asked for ahead.
        max_pages: Pages one listing may take at most (:class:`ListingGuard`).
        max_page_growth: A listing's bound as a multiple of the pages its ``paging.total`` or
            its stream's last run says (:class:`ListingGuard`; 0: no such bound).
        listing_sizes: The stream's largest listing, last run and this one.
        stats: Figures of the client's work; ``stats.skipped_parents`` lists vanished parents.
    """

    max_in_flight: int
    max_pages: int = 2000
    max_page_growth: int = 10
    listing_sizes: ListingSizes
    stats: ClientStats
    _lock: threading.Lock

    def get(
        self, path: str, params: Mapping[str, Any] | None = None, *, endpoint: str | None = None
    ) -> dict[str, Any]:
        """GET one answer as a JSON object (the client's
        :meth:`~sources.connecteam.client.ConnecteamClient.get`)."""
        raise NotImplementedError

    def answer(
        self, method: str, path: str, params: Mapping[str, Any] | None = None, *,
        endpoint: str | None = None,
    ) -> Body:  # fmt: skip
        """One successful answer's body, within a bound of memory (the client's
        :meth:`~sources.connecteam.client.ConnecteamClient.answer`)."""
        raise NotImplementedError

    def get_records(
        self, endpoint: Stream, path: str, params: Mapping[str, Any] | None = None
    ) -> Iterator[list[Any]]:
        """GET one unpaged answer's records, in batches when it is large (the client's
        :meth:`~sources.connecteam.client.ConnecteamClient.get_records`)."""
        raise NotImplementedError

    def paginate(
        self,
        endpoint: Stream,
        params: Mapping[str, Any] | None = None,
        path_params: Mapping[str, Any] | None = None,
    ) -> Iterator[list[dict[str, Any]]]:
        """Yield the pages of one list endpoint, spending the fewest requests the provider allows.

        ``limit`` is the endpoint's maximum; page ``n`` uses ``offset = n * limit``; the
        listing is sorted by the stream's stable key (``sort``, ascending) unless ``params``
        names a ``sort`` of its own. Paging stops
        at the first page holding fewer than ``limit`` records, and without asking for a page past
        ``paging.total`` when the answer carries it. For ``N`` records that is ``N // limit + 1``
        requests without a total, ``max(1, ceil(N / limit))`` with one. An endpoint that is not
        paged is asked once; its answer comes as one page, or as pages of
        :data:`~.answers.BATCH_ITEMS` records when it is larger than
        :data:`~.answers.STREAM_FROM_BYTES`.

        Args:
            endpoint: The stream whose endpoint to list (:data:`.registry.STREAMS`).
            params: Extra query parameters (filters, windows).
            path_params: Values for the placeholders in ``endpoint.path``.

        Yields:
            Each page's list of records (``data[<endpoint.data_key>]``), as the provider sent
            them, less the items quarantined (:class:`~.contract.ItemCheck`: not an object, a
            missing, null or mistyped key, a key listed before).

        Raises:
            ConnecteamAPIError: As :meth:`get`, and when an answer lacks ``data.<data_key>``.
        """
        for records, _total in self.pages(endpoint, params, path_params):
            yield records

    def pages(
        self,
        endpoint: Stream,
        params: Mapping[str, Any] | None = None,
        path_params: Mapping[str, Any] | None = None,
        *,
        ahead: bool = True,
    ) -> Iterator[tuple[list[dict[str, Any]], int | None]]:
        """As :meth:`paginate`, yielding ``(records, paging.total or None)`` per page, in order.

        Once an answer carried ``paging.total``, the next pages up to it are asked for ahead, up
        to ``max_in_flight`` at once (:class:`~.fanout.PagesAhead`), each waiting as its body's
        bytes (at most :data:`~.answers.IN_MEMORY_BYTES` of them in memory) until it is
        taken; a caller that may stop early passes ``ahead=False`` (no page past the one it
        stops at is asked for).

        Raises:
            ParentNotFoundError: A per-parent endpoint (``path_params`` given) answered 404.
            ConnecteamAPIError: As :meth:`get`, and when an answer lacks ``data.<data_key>``.
        """
        # an id is one path segment whatever it holds ("/", "?", spaces: percent-encoded)
        path = endpoint.path.format(
            **{name: quote(str(value), safe="") for name, value in (path_params or {}).items()}
        )
        try:
            yield from self._pages(endpoint, path, dict(params or {}), ahead)
        except ConnecteamAPIError as exc:
            if exc.status != 404 or not path_params or isinstance(exc, ParentNotFoundError):
                raise
            parent = ", ".join(f"{name} {value}" for name, value in path_params.items())
            raise ParentNotFoundError(endpoint.path, exc.detail, parent) from None

    def _pages(
        self, endpoint: Stream, path: str, query: dict[str, Any], ahead: bool
    ) -> Iterator[tuple[list[dict[str, Any]], int | None]]:
        items = ItemCheck(endpoint, path, self.stats.quarantine)
        if endpoint.max_limit is None:  # one answer, decoded in batches when it is large
            for records in self.get_records(endpoint, path, query):
                yield items(records), None
            return
        limit = endpoint.max_limit
        offset = 0
        if endpoint.sort and "sort" not in query:
            query = {**query, "sort": endpoint.sort, "order": "asc"}

        def fetch(at: int) -> Body:  # a page asked ahead waits as bytes, decoded when taken
            params = {**query, "limit": limit, "offset": at}
            return self.answer("GET", path, params, endpoint=endpoint.path)

        asked = PagesAhead(fetch, self.max_in_flight if ahead else 1)
        last = self.listing_sizes.last(endpoint.name)
        guard = ListingGuard(endpoint, self.max_pages, self.max_page_growth, last)
        listed = 0
        try:
            while True:
                with asked.get(offset) as received:
                    body = decode_object(received, endpoint.path)
                records = page_records(body, endpoint)
                paging = body.get("paging")
                total = paging.get("total") if isinstance(paging, dict) else None
                total = total if isinstance(total, int) and not isinstance(total, bool) else None
                guard.check(records, offset, total, limit)
                offset += limit
                listed += len(records)
                if len(records) < limit or (total is not None and offset >= total):
                    self.listing_sizes.record(endpoint.name, listed)
                    yield items(records), total
                    return
                if total is not None:
                    asked.plan(range(offset, total, limit))
                yield items(records), total
        finally:
            asked.close()

    def skip_parent(self, exc: ParentNotFoundError, stream: str) -> None:
        """Note that ``stream`` skipped a vanished parent this run (logged as a warning, listed
        in :attr:`ClientStats.skipped_parents`)."""
        logger.warning(
            "%s: skipped %s: it vanished since it was listed (%s answered 404)",
            stream, exc.parent, exc.endpoint,
        )  # fmt: skip
        with self._lock:
            self.stats.skipped_parents.append(f"{stream}: {exc.parent}")


class ListingSizes:
    """The most items one listing of each stream held: in the last run that loaded (kept in the
    source's dlt state under ``listing_sizes``, committed with the load, so a failed run leaves
    it as it was) and in this run so far. A per-parent or windowed stream's size is its largest
    single listing. Outside a running pipeline (a client used alone) nothing is kept between
    runs. Thread-safe."""

    def __init__(self) -> None:
        self._last: dict[str, int | None] = {}
        self._run: dict[str, int] = {}
        self._lock = threading.Lock()

    def last(self, stream: str) -> int | None:
        """Items in ``stream``'s largest listing in the last run that loaded; ``None``: unknown
        (a first run, or a value in the state that is not a count)."""
        with self._lock:
            return self._last_run(stream)

    def record(self, stream: str, items: int) -> None:
        """Note one complete listing of ``stream`` holding ``items`` records (before the item
        check)."""
        with self._lock:
            self._last_run(stream)  # read before this run's figure replaces it
            self._run[stream] = max(items, self._run.get(stream, 0))
            _sizes_state()[stream] = self._run[stream]

    def _last_run(self, stream: str) -> int | None:
        if stream not in self._last:
            value = _sizes_state().get(stream)
            count = isinstance(value, int) and not isinstance(value, bool) and value >= 0
            self._last[stream] = value if count else None
        return self._last[stream]


def _sizes_state() -> dict[str, Any]:
    """The running source's ``listing_sizes`` state; a throwaway dict outside a pipeline."""
    try:
        state = dlt.current.source_state()
    except Exception:  # noqa: BLE001 - no pipeline running: nothing to keep
        return {}
    sizes: dict[str, Any] = state.setdefault("listing_sizes", {})
    return sizes


class ListingGuard:
    """Stops one listing that does not end, so a provider or proxy answering every offset alike
    (or with ever new ids) cannot spend the day's request budget: raises
    :class:`~.errors.ConnecteamAPIError` (status 200, the endpoint named; the stream fails,
    the others load) when

    * a full page repeats the page before it;
    * a full page holds no id (the stream's item key) the listing has not yet listed;
    * the listing passes its bound, the least of: ``max_pages`` (setting
      ``SOURCES__CONNECTEAM__MAX_PAGES``); ``max_page_growth`` times the pages of the first
      answer's ``paging.total``, at least 100 (a total that grows with every page cannot move
      the bound); for a listing without a total, ``max_page_growth`` times the pages of the
      stream's largest listing last run (:class:`ListingSizes`), at least 100 (an endless
      listing stops long before ``max_pages``). ``max_page_growth`` 0 keeps only
      ``max_pages``.

    Args:
        endpoint: The stream whose endpoint is listed.
        max_pages: Pages the listing may take at most.
        growth: ``max_page_growth`` (setting ``SOURCES__CONNECTEAM__MAX_PAGE_GROWTH``).
        last_size: Items of the stream's largest listing last run (``None``: unknown).
    """

    def __init__(
        self, endpoint: Stream, max_pages: int, growth: int = 10, last_size: int | None = None
    ) -> None:
        self.endpoint = endpoint
        self.max_pages = max_pages
        self.growth = growth
        self.last_size = last_size
        self.pages = 0
        self.previous: list[Any] | None = None
        self.seen: set[int] = set()
        self.first_total: int | None = None

    def check(self, records: list[Any], offset: int, total: int | None, limit: int) -> None:
        """Check the page at ``offset`` (``records``, the answer's ``paging.total`` or
        ``None``, the ``limit`` asked for).

        Raises:
            ConnecteamAPIError: The listing does not end (see the class)."""
        self.pages += 1
        full = len(records) >= limit
        if full and records == self.previous:
            self.fail(offset, "the page repeats the one before it: the listing does not advance")
        keys = (
            [r.get(k) for k, _ in self.endpoint.item_keys] for r in records if isinstance(r, dict)
        )
        ids = {hash(repr(key)) for key in keys if any(v is not None for v in key)}
        if full and ids and ids <= self.seen:
            self.fail(offset, "every id of the page was listed before: the listing does not end")
        if self.first_total is None:
            self.first_total = total
        bound, why = self.bound(limit)
        if self.pages > bound:
            self.fail(
                offset, f"the listing passed {bound} pages ({why})",
                f"if it is really this long, raise SOURCES__CONNECTEAM__MAX_PAGES (now "
                f"{self.max_pages}) or SOURCES__CONNECTEAM__MAX_PAGE_GROWTH (now {self.growth})",
            )  # fmt: skip
        self.seen |= ids
        self.previous = records

    def bound(self, limit: int) -> tuple[int, str]:
        """Pages this listing may take at most, and what set that bound (for the message)."""
        bounds = [(self.max_pages, "SOURCES__CONNECTEAM__MAX_PAGES")]
        # the answer's own total when it gives one, else what the stream listed last run
        size, source = (
            (self.first_total, "its first paging.total")
            if self.first_total is not None
            else (self.last_size, "the stream's largest listing last run")
        )
        if size is not None and self.growth > 0:
            pages = max(100, self.growth * -(-size // limit))
            bounds.append((pages, f"{self.growth} times the pages of {size} items, {source}"))
        return min(bounds, key=lambda bound: bound[0])

    def fail(
        self, offset: int, why: str,
        hint: str = "a provider or proxy answering every page alike; check "
        "SOURCES__CONNECTEAM__BASE_URL",
    ) -> NoReturn:  # fmt: skip
        """Raise the stream's failure for the page at ``offset``."""
        raise ConnecteamAPIError(self.endpoint.path, 200, f"at offset {offset}, {why}", hint)
