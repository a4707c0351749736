"""Listings and change detection shared by the resources: a listing fetched once per run, a
listing read to its end (and whether it is complete), a record's digest, and the live mark.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import orjson

T = TypeVar("T")


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


def complete_listing(
    pages: Iterable[tuple[list[dict[str, Any]], int | None]],
    on_page: Callable[[int], None] | None = None,
) -> tuple[list[dict[str, Any]], bool]:
    """Every record of a listing read to its end, and whether it is complete.

    Args:
        pages: ``(records, paging.total or None)`` per page, as
            :meth:`~sources.connecteam.client.ConnecteamClient.pages` yields them.
        on_page: Called with each page's record count (progress).

    Returns:
        ``(records, complete)``: ``complete`` is false when an answer's ``paging.total``
        disagrees with the records read (a record added or removed while paging shifts the
        offsets), so the caller must not conclude that an unseen record is gone. Without a
        total, a listing read to its last (short) page is complete.
    """
    records: list[dict[str, Any]] = []
    totals: set[int] = set()
    for page, total in pages:
        records.extend(page)
        if total is not None:
            totals.add(total)
        if on_page is not None:
            on_page(len(page))
    return records, not totals or totals == {len(records)}


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
