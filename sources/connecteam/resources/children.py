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

from core.clock import now as clock_now
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
    was consistent or a second pass returns the same keys; a parent answering 404 (gone since
    it was listed) is skipped and its rows kept."""

    def listed(parent: Parent) -> tuple[list[dict[str, Any]], bool | None]:
        if fetch is not None:
            return fetch(parent)
        return complete_listing(client.pages(STREAMS[name], None, parent.path_params))

    def collect() -> tuple[list[dict[str, Any]], list[str], bool | None]:
        rows: list[dict[str, Any]] = []
        skipped: list[str] = []
        consistent: bool | None = True
        for parent in parents():
            try:
                records, complete = listed(parent)
            except ParentNotFoundError as exc:
                client.skip_parent(exc, name)
                skipped.append(parent.prefix)
                continue
            if complete is not True:
                consistent = False if False in (complete, consistent) else None
            rows += [parent.row(record) for record in records]
        return rows, skipped, consistent

    @dlt.resource(name=name, primary_key=key, write_disposition="merge", columns=hints(columns))
    def _children() -> Iterator[pa.Table]:
        progress = Progress(name, logger=logger)
        rows, skipped, consistent = collect()
        changed = [live(row) for row in only_changed(rows, key)]
        where = " and ".join([f"not starts_with({key}, %s)"] * len(skipped)) or "true"
        seen = {str(row[key]) for row in rows}
        again = lambda: {str(row[key]) for row in collect()[0]}  # noqa: E731
        now = int(clock_now())
        consistent = deletions_allowed(client.stats.quarantine, name, consistent)
        gone = vanished(name, key, seen, consistent, now, where, tuple(skipped), reread=again)
        progress.done(f" ({len(rows)} listed, {len(changed)} new or changed, {len(gone)} deleted)")
        yield from listing_tables(client, name, columns, changed, gone)

    return _children
