"""Listings and change detection shared by the resources: a listing fetched once per run, a
listing read to its end (and whether it is consistent), what may be marked deleted after it, a
record's digest, and the live mark.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import orjson

T = TypeVar("T")

Reread = Callable[[set[str]], set[str]]
"""A second pass of a listing for :func:`confirmed_gone`: given the keys that look gone, the
keys the listing returns now (a listing in parts may list again only the parts those keys
belong to, taking the others' keys from the first pass)."""

logger = logging.getLogger("sources.connecteam")


def once(function: Callable[[], T]) -> Callable[[], T]:
    """``function``'s result, computed by the first caller and shared with every later one.

    Unlike :func:`functools.cache`, callers arriving while the first call runs (parallel
    resources sharing one listing) wait for it instead of asking the provider again. A call that
    raises leaves nothing cached.
    """
    lock = threading.Lock()
    done: list[T] = []

    @functools.wraps(function)
    def shared() -> T:
        with lock:
            if not done:
                done.append(function())
            return done[0]

    return shared


class PageCheck:
    """What one listing's answers say about themselves: pages read, records counted and the
    ``paging.total`` values they carried (:attr:`consistent`)."""

    def __init__(self) -> None:
        self.pages = 0
        self.records = 0
        self.totals: set[int] = set()

    def add(self, count: int, total: int | None) -> None:
        """Count one page of ``count`` records whose answer carried ``total`` (or none)."""
        self.pages += 1
        self.records += count
        if total is not None:
            self.totals.add(total)

    @property
    def consistent(self) -> bool | None:
        """Whether the listing is one consistent view of the provider's records.

        ``True``: every answer's ``paging.total`` is the same and equals the records counted,
        or, without a total, one answer held them all. ``False``: a total changed from page to
        page or disagrees with the records counted (a record added or removed while paging
        shifts the offsets: one may have been skipped). ``None``: several pages without a total;
        only a second pass that agrees shows it consistent (:func:`confirmed_gone`).
        """
        if self.totals:
            return self.totals == {self.records}
        return True if self.pages <= 1 else None


def checked_pages(
    pages: Iterable[tuple[list[dict[str, Any]], int | None]], check: PageCheck
) -> Iterator[list[dict[str, Any]]]:
    """Each page's records of ``pages`` (as :meth:`~sources.connecteam.client.ConnecteamClient
    .pages` yields them), counted in ``check`` on the way."""
    for records, total in pages:
        check.add(len(records), total)
        yield records


def complete_listing(
    pages: Iterable[tuple[list[dict[str, Any]], int | None]],
    on_page: Callable[[int], None] | None = None,
) -> tuple[list[dict[str, Any]], bool | None]:
    """Every record of a listing read to its end, and whether it is consistent.

    Args:
        pages: ``(records, paging.total or None)`` per page, as
            :meth:`~sources.connecteam.client.ConnecteamClient.pages` yields them.
        on_page: Called with each page's record count (progress).

    Returns:
        ``(records, consistent)``, ``consistent`` as :attr:`PageCheck.consistent`: unless it
        is ``True`` the caller must not conclude that an unseen record is gone without a second
        pass (:func:`confirmed_gone`).
    """
    records: list[dict[str, Any]] = []
    check = PageCheck()
    for page in checked_pages(pages, check):
        records.extend(page)
        if on_page is not None:
            on_page(len(page))
    return records, check.consistent


def all_consistent(values: Iterable[bool | None]) -> bool | None:
    """The consistency of a listing read in parts (date windows): ``False`` if a part was not
    consistent, else ``None`` if a part's is unknown, else ``True``."""
    seen = set(values)
    return False if False in seen else None if None in seen else True


def second_pass(
    read: Callable[[], Iterable[tuple[list[dict[str, Any]], int | None]]],
    key: Callable[[dict[str, Any]], str],
) -> Reread:
    """A second pass of a whole listing for :func:`confirmed_gone`: ``read()`` lists it again
    (as :meth:`~sources.connecteam.client.ConnecteamClient.pages` does) and the pass returns
    the ``key`` of every record."""
    return lambda _gone: {key(record) for page, _ in read() for record in page}


def confirmed_gone(
    stream: str,
    gone: set[str],
    seen: set[str],
    consistent: bool | None,
    reread: Reread | None = None,
) -> set[str]:
    """The keys of ``gone`` that may be marked deleted: all of them when the listing that did
    not return them was consistent, none otherwise (a warning names the stream).

    Offset paging shifts under a concurrent deletion: the record after a deleted one moves to
    the previous page and is skipped, so an unseen record is gone only when the listing was
    one consistent view. A listing of several pages without ``paging.total``
    (``consistent`` ``None``) is read a second time, only when something looks gone
    (``reread``: given the keys that look gone, the keys that pass returns); it is consistent
    when both passes return the same keys. A later consistent run marks what is really gone.

    Args:
        stream: Named in the warning (e.g. ``shifts[9000]``).
        gone: Keys loaded as live that this run's listing did not return.
        seen: Keys this run's listing returned.
        consistent: :attr:`PageCheck.consistent` of that listing.
        reread: A second pass's keys (:data:`Reread`), for a listing whose consistency is
            unknown.
    """
    if not gone:
        return set()
    if consistent is None and reread is not None:
        again = reread(gone)
        if again == seen:
            return gone
        logger.warning(
            "%s: the listing changed between two passes (%d keys differ); nothing marked "
            "deleted this run", stream, len(again ^ seen),
        )  # fmt: skip
        return set()
    if not consistent:
        logger.warning(
            "%s: the listing was not consistent (%s); nothing marked deleted this run",
            stream,
            "paging.total changed or disagreed with the records read"
            if consistent is False
            else "several pages without paging.total",
        )
        return set()
    return gone


def live(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with the sync's deletion mark cleared: ``is_deleted`` false, ``deleted_at``
    null (a record loaded again after being marked deleted is live again)."""
    return {**record, "is_deleted": False, "deleted_at": None}


def content_hash(record: dict[str, Any]) -> str:
    """A stable digest of one provider record (key order does not matter; integers beyond 64
    bits included)."""
    try:
        text = orjson.dumps(record, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson refuses integers beyond 64 bits; the standard library does not
        text = json.dumps(record, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.blake2b(text, digest_size=16).hexdigest()
