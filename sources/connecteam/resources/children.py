"""A listing per parent record, diffed as one: the streams with no time whose endpoint takes a
parent's id (shift layers, their values and shift custom fields per scheduler, dropdown options
per user custom field)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import dlt
import pyarrow as pa
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import hints
from ..client import ConnecteamClient
from ..contract import deletions_allowed
from ..errors import ParentNotFoundError
from ..listing import complete_listing, live
from ..loaded import only_changed, vanished
from ..registry import STREAMS
from .common import listing_tables

logger = logging.getLogger("sources.connecteam")


@dataclass(frozen=True)
class Parent:
    """One parent record whose children a stream lists.

    Attributes:
        path_params: The endpoint's path placeholders, e.g. ``{"schedulerId": 9000}``.
        prefix: What the keys of its children's rows start with (its own key and ``:``), so a
            parent that could not be listed keeps its children's rows as they are.
        row: One listed record as a warehouse row (carrying its key column).
    """

    path_params: dict[str, Any]
    prefix: str
    row: Callable[[dict[str, Any]], dict[str, Any]]


Fetch = Callable[[Parent], tuple[list[dict[str, Any]], bool | None]]
"""A parent's listing: ``(records, consistent)``; raises
:class:`~sources.connecteam.errors.ParentNotFoundError` for a parent gone since it was listed."""


@dataclass
class Listed:
    """What one pass over the parents' listings returned.

    Attributes:
        rows: Every listed parent's children, as rows.
        skipped: The prefixes of the parents that answered 404 (gone since they were listed).
        unsure: The parents whose listing's consistency is unknown (several pages without
            ``paging.total``), by prefix.
        consistent: The pass's consistency: ``False`` if a listing was inconsistent, else
            ``None`` if one's is unknown, else ``True``.
    """

    rows: list[dict[str, Any]]
    skipped: list[str]
    unsure: dict[str, Parent]
    consistent: bool | None


def child_listing(
    client: ConnecteamClient,
    name: str,
    key: str,
    columns: dict[str, str],
    parents: Callable[[], list[Parent]],
    fetch: Fetch | None = None,
) -> DltResource:
    """``name``: every parent's listing (each read to its end, by ``fetch`` or the stream's
    endpoint), merged on ``key``; only new or changed rows load (digest). A loaded row whose
    parent was listed and which no listing returned is marked deleted, only when every listing
    was consistent or a second pass agrees: the second pass lists again only the parents whose
    listing's consistency is unknown and which lost a row. A parent answering 404 (gone since
    it was listed) is skipped and its rows kept."""

    def listed(parent: Parent) -> tuple[list[dict[str, Any]], bool | None]:
        if fetch is not None:
            return fetch(parent)
        return complete_listing(client.pages(STREAMS[name], None, parent.path_params))

    def collect(chosen: list[Parent]) -> Listed:
        out = Listed([], [], {}, True)
        for parent in chosen:
            try:
                records, complete = listed(parent)
            except ParentNotFoundError as exc:
                client.skip_parent(exc, name)
                out.skipped.append(parent.prefix)
                continue
            if complete is None:
                out.unsure[parent.prefix] = parent
            if complete is not True:
                out.consistent = False if False in (complete, out.consistent) else None
            out.rows += [parent.row(record) for record in records]
        return out

    @dlt.resource(name=name, primary_key=key, write_disposition="merge", columns=hints(columns))
    def _children() -> Iterator[pa.Table]:
        progress = Progress(name, logger=logger)
        first = collect(parents())
        changed = [live(row) for row in only_changed(first.rows, key)]
        where = " and ".join([f"not starts_with({key}, %s)"] * len(first.skipped)) or "true"
        seen = {str(row[key]) for row in first.rows}

        def again(gone: set[str]) -> set[str]:
            relist = [p for prefix, p in first.unsure.items()
                      if any(k.startswith(prefix) for k in gone)]  # fmt: skip
            prefixes = tuple(parent.prefix for parent in relist)
            kept = {k for k in seen if not k.startswith(prefixes)}
            return kept | {str(row[key]) for row in collect(relist).rows}

        now = int(client.now)
        consistent = deletions_allowed(client.stats.quarantine, name, first.consistent)
        skipped = tuple(first.skipped)
        gone = vanished(name, key, seen, consistent, now, where, skipped, reread=again)
        counts = f"{len(first.rows)} listed, {len(changed)} new or changed, {len(gone)} deleted"
        progress.done(f" ({counts})")
        yield from listing_tables(client, name, columns, changed, gone)

    return _children
