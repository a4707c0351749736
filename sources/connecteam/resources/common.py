"""What every resource of the ``connecteam`` source shares: the deletion mark's columns, the
diff of a full listing with what is loaded, and the ``{id, name, isArchived}`` listings.

One row style: a resource maps each provider record to one warehouse row (a dict) with its
stream's row mapping (``<entity>_row``; the users, forms, schedulers, shifts and user documents
rows are the provider's record itself plus the row's keys and marks, whose camelCase fields dlt
names in snake_case), declares the row's column types once (``*_COLUMNS``, passed to
:func:`~sources.connecteam.arrow_rows.hints` and :class:`~sources.connecteam.arrow_rows.ArrowRows`)
and yields Arrow tables.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import dlt
import pyarrow as pa
import pyarrow.compute as pc
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import BIGINT, BOOL, TEXT, ArrowRows, hints
from ..client import ConnecteamClient
from ..contract import deletions_allowed
from ..listing import Reread, complete_listing, live, second_pass
from ..loaded import only_changed, vanished
from ..registry import STREAMS

logger = logging.getLogger("sources.connecteam")

DELETION_MARK: dict[str, str] = {"is_deleted": BOOL, "deleted_at": BIGINT}
"""The sync's deletion mark: ``is_deleted``, and ``deleted_at`` in epoch seconds (UTC)."""

Listing = Callable[[], tuple[list[dict[str, Any]], bool | None]]
"""A parent listing fetched once per run: ``(records, consistent)``
(:func:`~sources.connecteam.listing.complete_listing`)."""


def diff_listing(
    client: ConnecteamClient,
    table: str,
    key: str,
    rows: list[dict[str, Any]],
    complete: bool | None,
    field: str | None = None,
    mark: Callable[[dict[str, Any]], dict[str, Any]] = live,
    reread: Reread | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A full listing compared with what is loaded.

    Args:
        client: The client that listed (its quarantine: :func:`~..contract.deletions_allowed`).
        table: The destination table (= the stream).
        key: Its key column.
        rows: Every row the listing returned.
        complete: Whether the listing was consistent (see
            :func:`~sources.connecteam.listing.complete_listing`; ``None``: unknown).
        field: The rows' key field, when it differs from ``key`` (provider records: ``formId``).
        mark: Applied to each changed row (default: the live mark, :func:`~..listing.live`).
        reread: A second pass's keys (:func:`~..listing.second_pass`), for a listing whose
            consistency is unknown.

    Returns:
        ``(changed, gone)``: the rows whose digest changed (:func:`~..loaded.only_changed`), and
        tombstones of the live loaded rows the listing no longer holds (none unless the listing
        was consistent: :func:`~..listing.confirmed_gone`, and no item of the stream or a stream
        above it was quarantined this run).
    """
    field = field or key
    changed = [mark(r) for r in only_changed(rows, field)]
    seen = {str(r.get(field)) for r in rows}
    complete = deletions_allowed(client.stats.quarantine, table, complete)
    return changed, vanished(table, key, seen, complete, int(client.now), reread=reread)


def listing_tables(
    client: ConnecteamClient,
    table: str,
    columns: dict[str, str],
    changed: list[dict[str, Any]],
    gone: list[dict[str, Any]],
) -> Iterator[pa.Table]:
    """The ``(changed, gone)`` of :func:`diff_listing` as Arrow tables of ``table`` with
    ``columns`` fixed (misfits counted in the client's ``untyped_values``); none for an empty
    side."""
    arrow = ArrowRows(table, columns, client.stats.untyped_values)
    for batch in (changed, gone):
        if batch:
            yield arrow.to_arrow(batch)


def named_listing(
    client: ConnecteamClient, name: str, listing: Callable[[], list[dict[str, Any]]]
) -> DltResource:
    """``name``: the records of an unpaged ``{id, name, isArchived}`` listing (time clocks, task
    boards), merged on ``id``; only changed ones load (the endpoints have no timestamps); one
    the listing no longer holds is marked deleted."""

    @dlt.resource(
        name=name, primary_key="id", write_disposition="merge", columns=hints(DELETION_MARK)
    )
    def _listing() -> Iterator[pa.Table]:
        rows = [{"id": r["id"], "name": r.get("name"), "is_archived": r.get("isArchived")}
                for r in listing()]  # fmt: skip
        changed, gone = diff_listing(client, name, "id", rows, True)
        yield from listing_tables(client, name, DELETION_MARK, changed, gone)

    return _listing


def record_listing(
    client: ConnecteamClient,
    name: str,
    columns: dict[str, str],
    to_row: Callable[[dict[str, Any]], dict[str, Any]],
    shared: Listing | None = None,
) -> DltResource:
    """``name``: every record of its stream's listing (paged or not, read to its end), each a
    row by ``to_row`` keyed ``id``, merged on ``id``; only changed ones load (digest); one a
    consistent listing no longer holds is marked deleted (a second pass confirms it when the
    first pass's consistency is unknown). Used by the listings with no time: sales locations,
    smart groups and their segments, user custom field definitions (whose listing, ``shared``,
    is fetched once and also gives their options' parents) and categories."""

    @dlt.resource(name=name, primary_key="id", write_disposition="merge", columns=hints(columns))
    def _listing() -> Iterator[pa.Table]:
        progress = Progress(name, logger=logger)
        listing = partial(client.pages, STREAMS[name])
        listed, complete = shared() if shared else complete_listing(listing(), progress.page)
        rows = [to_row(record) for record in listed]
        again = second_pass(listing, lambda record: str(to_row(record)["id"]))
        changed, gone = diff_listing(client, name, "id", rows, complete, reread=again)
        progress.done(f" ({len(rows)} listed, {len(changed)} new or changed, {len(gone)} deleted)")
        yield from listing_tables(client, name, columns, changed, gone)

    return _listing


def versions(
    batch: pa.Table, table: str, keys: tuple[str, ...], columns: dict[str, str], observed_at: int
) -> Any:
    """The rows of ``batch`` (new or changed rows, or tombstones, of ``table``) as versions for
    the append-only ``<table singular>_versions`` table (``user_versions``, ``shift_versions``):
    the same columns plus ``observed_at`` (epoch seconds, UTC: the sync's clock) and
    ``version_key`` (``keys`` and ``observed_at`` joined by ``:``), merged on ``version_key`` so a
    re-extracted run writes each version once (two runs within one clock second keep the
    later's version of a record).

    Args:
        batch: An Arrow table the resource yields to ``table``.
        table: ``users`` or ``shifts``.
        keys: The columns identifying a record (``("user_id",)``, ``("scheduler_id", "id")``).
        columns: The row's declared column types (as for ``table``).
        observed_at: The sync's time, epoch seconds.

    Returns:
        The batch marked for dlt's table variant ``<table>_versions``.
    """
    name = f"{table.rstrip('s')}_versions"
    stamp = pa.array([observed_at] * batch.num_rows, pa.int64())
    parts = [pc.cast(batch.column(k), pa.string()) for k in keys]
    key = pc.binary_join_element_wise(*parts, pc.cast(stamp, pa.string()), ":")
    rows = batch.append_column("observed_at", stamp).append_column("version_key", key)
    version_hints = dlt.mark.make_hints(
        table_name=name,
        write_disposition="merge",
        primary_key="version_key",
        columns=hints({**columns, "observed_at": BIGINT, "version_key": TEXT}),
    )
    return dlt.mark.with_hints(rows, version_hints, create_table_variant=True)
