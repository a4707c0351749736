"""What every stream owes the warehouse when an answer is not what the spec declares.

Each item of a listing's page is checked before any resource sees it (:class:`ItemCheck`, run
by :class:`~.paging.Paging` for every page of every stream): an item that is not a JSON object,
lacks its key field(s) (the stream's :attr:`~.registry.Stream.item_key`), holds ``null`` there,
a value of another type than the spec declares, an integer past the 64-bit range, or a key a
previous item of the same listing already had is **quarantined**: kept whole (the raw item as
JSON text, the stream, the endpoint, the reason) in :class:`Quarantine`, loaded into the
warehouse table ``connecteam.quarantine`` by the sync, counted in the run's summary and in
``wfm-sync status``. Every other item goes on to its resource; a value of another type in a
field that is not a key is kept in the row's ``untyped_values`` column instead
(:mod:`.arrow_rows`).

A listing that quarantined an item is not a complete view of the provider's records: its stream
(and every stream listed below it, :meth:`Quarantine.blocks_deletions`) marks nothing deleted in
that run, so a record the provider sent in a shape we could not read is never taken for gone.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass
from typing import Any

from .arrow_rows import INT64_MAX, INT64_MIN, dumps
from .registry import STREAMS, Stream

logger = logging.getLogger("sources.connecteam")

QUARANTINE_TABLE = "quarantine"
"""The warehouse table (dataset ``connecteam``) of the quarantined items, merged on
``quarantine_key``."""

QUARANTINE_COLUMNS: dict[str, str] = {
    "quarantine_key": "text!", "stream": "text!", "endpoint": "text!", "path": "text",
    "reason": "text!", "item": "text", "seen_at": "bigint!",
}  # fmt: skip
"""The columns of :data:`QUARANTINE_TABLE`: the key (a digest of the path, the reason and the
item), the stream and its endpoint's path template, the path asked (parent ids filled in), the
reason, the raw item as JSON text, and when a sync last received it (epoch seconds, UTC)."""

_JSON_KINDS = {type(None): "null", bool: "a boolean", int: "an integer", float: "a number",
               str: "a string", list: "a list", dict: "an object"}  # fmt: skip


def json_kind(value: Any) -> str:
    """``value``'s JSON kind in words (``"a string"``, ``"null"``)."""
    return _JSON_KINDS.get(type(value), type(value).__name__)


_ABSENT = object()


def key_value(item: dict[str, Any], name: str) -> Any:
    """The value of key field ``name`` of ``item`` (``payRate.effectiveDate``: a field of a
    field); :data:`_ABSENT` when it is not there."""
    value: Any = item
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            return _ABSENT
        value = value[part]
    return value


def malformed(item: Any, item_keys: tuple[tuple[str, type], ...]) -> str | None:
    """Why ``item`` (one element of a listing's list) cannot be loaded, or ``None``.

    Args:
        item: The element as decoded from the answer's JSON.
        item_keys: ``((field, int or str), ...)``: the key fields and the type the spec declares
            (:attr:`~.registry.Stream.item_keys`).
    """
    if not isinstance(item, dict):
        return f"the item is {json_kind(item)} where the spec declares an object"
    for name, kind in item_keys:
        value = key_value(item, name)
        if value is _ABSENT:
            return f"the item has no {name}"
        if value is None:
            return f"{name} is null"
        if kind is int:
            if not isinstance(value, int) or isinstance(value, bool):
                return f"{name} is {json_kind(value)} where the spec declares an integer"
            if not INT64_MIN <= value <= INT64_MAX:
                return f"{name} is an integer past the 64-bit range"
        elif not isinstance(value, str):
            return f"{name} is {json_kind(value)} where the spec declares a string"
    return None


@dataclass(frozen=True)
class QuarantinedItem:
    """One item a listing sent that could not be loaded.

    Attributes:
        stream: The stream whose endpoint sent it.
        endpoint: The endpoint's path template.
        path: The path asked (parent ids filled in).
        reason: Why it was quarantined (:func:`malformed`, or a repeated key).
        item: The item as JSON text, as it came.
    """

    stream: str
    endpoint: str
    path: str
    reason: str
    item: str

    @property
    def key(self) -> str:
        """A digest of the path, the reason and the item: the same item quarantined again (a
        second pass, the next night) is one row."""
        text = "\x1f".join((self.path, self.reason, self.item)).encode()
        return hashlib.blake2b(text, digest_size=16).hexdigest()

    def row(self, seen_at: int) -> dict[str, Any]:
        """The item as a row of :data:`QUARANTINE_TABLE` (``seen_at``: epoch seconds, UTC)."""
        return {"quarantine_key": self.key, "stream": self.stream, "endpoint": self.endpoint,
                "path": self.path, "reason": self.reason, "item": self.item,
                "seen_at": seen_at}  # fmt: skip


class Quarantine:
    """The items one sync quarantined, by key (thread-safe: streams list in parallel)."""

    def __init__(self) -> None:
        self._items: dict[str, QuarantinedItem] = {}
        self._lock = threading.Lock()

    def add(self, item: QuarantinedItem) -> None:
        """Keep ``item`` (once per key) and log it as a warning (the stream, the path and the
        reason; never the item's values)."""
        with self._lock:
            if item.key in self._items:
                return
            self._items[item.key] = item
        logger.warning("%s: quarantined an item of %s: %s", item.stream, item.path, item.reason)

    def items(self) -> list[QuarantinedItem]:
        """Every item kept, in the order quarantined."""
        with self._lock:
            return list(self._items.values())

    def counts(self) -> dict[str, int]:
        """Items kept per stream."""
        counts: dict[str, int] = {}
        for item in self.items():
            counts[item.stream] = counts.get(item.stream, 0) + 1
        return counts

    def discard(self, streams: set[str]) -> None:
        """Forget the items of ``streams`` (streams that failed: nothing of theirs loads)."""
        with self._lock:
            self._items = {k: v for k, v in self._items.items() if v.stream not in streams}

    def blocks_deletions(self, stream: str) -> bool:
        """Whether ``stream`` must mark nothing deleted this run: it, or a stream it is listed
        below (its parent, the parent's parent), quarantined an item; logs a warning when so."""
        quarantined = set(self.counts())
        chain: list[str] = []
        name: str | None = stream
        while name is not None and name not in chain:
            chain.append(name)
            name = STREAMS[name].parent if name in STREAMS else None
        hit = [name for name in chain if name in quarantined]
        if hit:
            logger.warning(
                "%s: nothing marked deleted this run: %s quarantined items (see connecteam.%s)",
                stream, " and ".join(hit), QUARANTINE_TABLE,
            )  # fmt: skip
        return bool(hit)


class ItemCheck:
    """The check of one listing's items (one :meth:`~.paging.Paging.pages` call): each page's
    items that :func:`malformed` refuses, or whose key an earlier item of the listing had, go to
    ``quarantine``; the rest go on.

    Args:
        endpoint: The stream listed.
        path: The path asked (parent ids filled in).
        quarantine: Where refused items are kept.
    """

    def __init__(self, endpoint: Stream, path: str, quarantine: Quarantine) -> None:
        self.endpoint = endpoint
        self.path = path
        self.quarantine = quarantine
        self.seen: set[tuple[Any, ...]] = set()
        """The keys listed so far (not the items: a long listing's memory stays one page's)."""

    def __call__(self, records: list[Any]) -> list[dict[str, Any]]:
        """The items of one page that may load, in order."""
        good: list[dict[str, Any]] = []
        for item in records:
            reason = malformed(item, self.endpoint.item_keys)
            if reason is None:
                key = tuple(key_value(item, name) for name, _ in self.endpoint.item_keys)
                if key not in self.seen:
                    self.seen.add(key)
                    good.append(item)
                    continue
                names = (name for name, _ in self.endpoint.item_keys)
                shown = ", ".join(f"{n} {v!r}" for n, v in zip(names, key, strict=True))
                reason = f"{shown} repeated in the listing (the first item with it was loaded)"
            self.quarantine.add(QuarantinedItem(
                self.endpoint.name, self.endpoint.path, self.path, reason, dumps(item)
            ))  # fmt: skip
        return good


def deletions_allowed(quarantine: Quarantine, stream: str, consistent: bool | None) -> bool | None:
    """A listing's consistency (``True``/``None``/``False``) as deletions may use it: ``False``
    when ``stream`` or a stream above it quarantined an item this run
    (:meth:`Quarantine.blocks_deletions`)."""
    return False if quarantine.blocks_deletions(stream) else consistent
