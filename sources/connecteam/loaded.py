"""What the warehouse already holds, as resources need it to load only what changed.

Two mechanisms, both committed together with the load they describe:

* :func:`query_loaded` reads the destination table itself (through the running pipeline's SQL
  client, one for the whole extract inside :func:`one_sql_client`), for streams whose rows can
  vanish: the windowed ones (shifts, time activities, timesheets) and the full-list ones
  (:func:`vanished`);
* :func:`only_changed` keeps a digest per record in the resource's dlt state, for endpoints
  without a modified-since filter or timestamp (schedulers, jobs, tasks, ...).

A row the provider stopped returning is never dropped: it is merged again with
``is_deleted = true`` and ``deleted_at`` (epoch seconds, UTC), its data kept (:func:`tombstones`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
from collections.abc import Iterator
from typing import Any, cast

import dlt
import orjson

from .arrow_rows import UNTYPED_COLUMN
from .listing import Reread, confirmed_gone, content_hash

logger = logging.getLogger("sources.connecteam")
_SQL_CLIENT_LOCK = threading.Lock()
_SHARED: dict[int, Any] = {}
"""Pipelines (by ``id``) inside :func:`one_sql_client`: each one's open SQL client, or ``None``
before its first query."""


@contextlib.contextmanager
def one_sql_client(pipeline: dlt.Pipeline) -> Iterator[None]:
    """Every :func:`query_loaded` on ``pipeline`` inside the block shares one SQL client of its
    destination, opened at the first query and closed when the block ends.

    Without it each query opens a client of its own, resolving dlt's configuration and
    connecting each time (about 60 ms; an extract of every stream asks some 50 times). What a
    query reads is the same either way: nothing is loaded while an extract runs, and a query
    that fails leaves the client as dlt resets it (a rollback), ready for the next.
    """
    _SHARED[id(pipeline)] = None
    try:
        yield
    finally:
        with _SQL_CLIENT_LOCK:
            client = _SHARED.pop(id(pipeline), None)
            if client is not None:
                client.__exit__(None, None, None)


@contextlib.contextmanager
def _sql_client(pipeline: dlt.Pipeline) -> Iterator[Any]:
    """``pipeline``'s SQL client for one query: the one shared inside :func:`one_sql_client`
    (opened here at the first query), or one of its own, closed after. Called holding
    :data:`_SQL_CLIENT_LOCK`."""
    if id(pipeline) not in _SHARED:
        with pipeline.sql_client() as client:
            yield client
        return
    if _SHARED[id(pipeline)] is None:
        _SHARED[id(pipeline)] = pipeline.sql_client().__enter__()
    yield _SHARED[id(pipeline)]


def query_loaded(table: str, sql: str, *args: Any) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run ``sql`` (``{table}`` is replaced by the qualified table) on the current pipeline's
    destination.

    Returns:
        ``(column names, rows)``; ``([], [])`` outside a pipeline or before the table exists.
    """
    from dlt.common.configuration.container import Container
    from dlt.common.pipeline import PipelineContext
    from dlt.destinations.exceptions import DatabaseUndefinedRelation

    # the running pipeline, as dlt.current.pipeline() finds it, without resolving dlt's
    # configuration again on every query (and without making a pipeline when none runs)
    context = Container()[PipelineContext]
    if not context.is_active():  # iterated outside a pipeline: nothing loaded yet
        return [], []
    pipeline = cast(dlt.Pipeline, context.pipeline())
    if pipeline.destination is None or not pipeline.default_schema_name:
        return [], []
    try:
        # dlt injects config sections into one shared container: two parallel resources opening
        # SQL clients at once trip over each other's section ("ContainerInjectableContextMangled")
        with _SQL_CLIENT_LOCK, _sql_client(pipeline) as sql_client:
            qualified = sql_client.make_qualified_table_name(table)
            with sql_client.execute_query(sql.format(table=qualified), *args) as cursor:
                columns = [d[0] for d in cursor.description]
                return columns, [tuple(r) for r in cursor.fetchall()]
    except DatabaseUndefinedRelation:
        return [], []


def tombstones(
    table: str, key_filter: str, key_args: tuple[Any, ...], ids: set[str],
    json_columns: set[str] | None, now: int, key: str = "id",
) -> list[dict[str, Any]]:  # fmt: skip
    """The loaded rows of ``ids`` (within ``key_filter``), marked ``is_deleted`` at ``now``.

    Args:
        table: The destination table.
        key_filter: SQL condition narrowing the rows, e.g. ``time_clock_id = %s``.
        key_args: Its parameters.
        ids: Values of the ``key`` column to mark (compared as text).
        json_columns: Columns holding JSON, decoded again so they reload as JSON; ``None``: the
            table's ``json`` columns in the running pipeline's schema.
        now: Epoch seconds (UTC) stored in ``deleted_at``.
        key: The table's key column.

    Returns:
        Rows with the warehouse's (snake_case) column names, dlt's own columns left out.
    """
    if not ids:
        return []
    if json_columns is None:
        json_columns = _json_columns(table)
    placeholders = ", ".join(["%s"] * len(ids))
    columns, rows = query_loaded(
        table,
        f"select * from {{table}} where {key_filter} "
        f"and cast({key} as varchar) in ({placeholders})",
        *key_args,
        *sorted(ids),
    )
    out = []
    for values in rows:
        row = {}
        for column, value in zip(columns, values, strict=True):
            if column.startswith("_dlt"):
                continue
            if column in (*json_columns, UNTYPED_COLUMN) and isinstance(value, str | bytes):
                value = orjson.loads(value)
            row[column] = value
        row["is_deleted"] = True
        row["deleted_at"] = now
        out.append(row)
    return out


def live_keys(
    table: str, key: str, columns: tuple[str, ...] = (), where: str = "true",
    args: tuple[Any, ...] = (),
) -> list[tuple[Any, ...]]:  # fmt: skip
    """``(key as text, *columns)`` of the loaded rows not marked deleted (``is_deleted`` null or
    false; every row when the table has no such column yet), within ``where``.

    Returns:
        The rows; empty before the table exists.
    """
    names, _ = query_loaded(table, "select * from {table} limit 0")
    if not names:
        return []
    live = "not coalesce(is_deleted, false)" if "is_deleted" in names else "true"
    selected = ", ".join((f"cast({key} as varchar)", *columns))
    _, rows = query_loaded(
        table, f"select {selected} from {{table}} where {live} and ({where})", *args
    )
    return rows


def vanished(
    table: str, key: str, seen: set[str], consistent: bool | None, now: int, where: str = "true",
    args: tuple[Any, ...] = (), reread: Reread | None = None,
) -> list[dict[str, Any]]:  # fmt: skip
    """Tombstones of a full listing: the live loaded rows (within ``where``) whose ``key`` is
    not in ``seen``, marked deleted at ``now``; none unless the listing was consistent
    (:func:`~sources.connecteam.listing.confirmed_gone`).

    (A listing that raised never gets here: its stream fails and marks nothing.) The marked
    keys' digests are dropped from the resource state (:func:`only_changed`), so a record that
    comes back loads again, live.

    Args:
        table: The destination table.
        key: Its key column.
        seen: Keys (as text) the listing returned.
        consistent: Whether the listing was consistent (see
            :attr:`~sources.connecteam.listing.PageCheck.consistent`; ``None``: unknown).
        now: Epoch seconds (UTC) stored in ``deleted_at``.
        where: SQL condition narrowing the rows the listing covers, e.g. a window.
        args: Its parameters.
        reread: The keys of a second pass of the same listing, asked for only when the first
            was of unknown consistency and something looks gone.

    Returns:
        The rows to merge (warehouse column names), empty when nothing vanished.
    """
    gone = {str(r[0]) for r in live_keys(table, key, where=where, args=args)} - seen
    gone = confirmed_gone(table, gone, seen, consistent, reread)
    if not gone:
        return []
    forget_digests(gone)
    return tombstones(table, where, args, gone, None, now, key=key)


def forget_digests(keys: set[str]) -> None:
    """Drop ``keys`` from this resource's digests (see :func:`only_changed`)."""
    digests: dict[str, str] = dlt.current.resource_state().setdefault("digests", {})
    for key in keys:
        digests.pop(digest_slot(key), None)
        digests.pop(key, None)  # a state written before long keys had slots


DIGEST_SLOT_MAX = 40
"""Keys up to this many characters are their own slot in a resource's ``digests``."""


def digest_slot(key: str) -> str:
    """Where ``key``'s digest is kept in a resource's ``digests``: the key itself when it has at
    most :data:`DIGEST_SLOT_MAX` characters, else ``#`` and 24 hex digits of its BLAKE2b digest.

    The state is written, compressed and hashed whole at each step of a load, so its size is
    paid many times a sync: composite keys built from the provider's text (a pay rate's user,
    date and type) can run to hundreds of characters. Two keys sharing a slot (odds about
    1 in 2**96) only make each other load again, never hide a change.
    """
    if len(key) <= DIGEST_SLOT_MAX:
        return key
    return "#" + hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def _json_columns(table: str) -> set[str]:
    """The ``json`` columns of ``table`` in the running pipeline's schema."""
    try:
        schema = dlt.current.source_schema()
    except Exception:  # noqa: BLE001 - outside a running pipeline: nothing is known
        return set()
    if table not in schema.tables:
        return set()
    return {
        name
        for name, column in schema.get_table_columns(table).items()
        if column.get("data_type") == "json"
    }


def only_changed(records: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The records whose digest differs from the one this resource loaded last.

    For endpoints without a modified-since filter or timestamp: the digests of loaded records are
    kept in the resource's dlt state under ``digests``, by :func:`digest_slot` of the key, and
    commit with the load (an interrupted load leaves them unchanged).
    """
    digests: dict[str, str] = dlt.current.resource_state().setdefault("digests", {})
    changed = []
    for record in records:
        digest, raw = content_hash(record), str(record[key])
        slot = digest_slot(raw)
        if slot != raw:
            digests.pop(raw, None)  # a state written before long keys had slots
        if digests.get(slot) != digest:
            digests[slot] = digest
            changed.append(record)
    return changed
