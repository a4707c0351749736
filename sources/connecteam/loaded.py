"""What the warehouse already holds, as resources need it to load only what changed.

Two mechanisms, both committed together with the load they describe:

* :func:`query_loaded` reads the destination table itself (through the running pipeline's SQL
  client), for windowed streams whose rows can vanish (shifts, time activities, timesheets);
* :func:`only_changed` keeps a digest per record in the resource's dlt state, for endpoints
  without a modified-since filter or timestamp (schedulers, jobs, tasks, ...).
"""

from __future__ import annotations

import threading
from typing import Any

import dlt
import orjson

from .arrow_rows import UNTYPED_COLUMN
from .helpers import content_hash

_SQL_CLIENT_LOCK = threading.Lock()


def query_loaded(table: str, sql: str, *args: Any) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run ``sql`` (``{table}`` is replaced by the qualified table) on the current pipeline's
    destination.

    Returns:
        ``(column names, rows)``; ``([], [])`` outside a pipeline or before the table exists.
    """
    from dlt.destinations.exceptions import DatabaseUndefinedRelation

    try:
        pipeline = dlt.current.pipeline()
    except Exception:  # noqa: BLE001 - iterated outside a pipeline: nothing loaded yet
        return [], []
    if pipeline.destination is None or not pipeline.default_schema_name:
        return [], []
    try:
        # dlt injects config sections into one shared container: two parallel resources opening
        # SQL clients at once trip over each other's section ("ContainerInjectableContextMangled")
        with _SQL_CLIENT_LOCK, pipeline.sql_client() as sql_client:
            qualified = sql_client.make_qualified_table_name(table)
            with sql_client.execute_query(sql.format(table=qualified), *args) as cursor:
                columns = [d[0] for d in cursor.description]
                return columns, [tuple(r) for r in cursor.fetchall()]
    except DatabaseUndefinedRelation:
        return [], []


def tombstones(
    table: str, key_filter: str, key_args: tuple[Any, ...], ids: set[str], json_columns: set[str],
    now: int,
) -> list[dict[str, Any]]:  # fmt: skip
    """The loaded rows of ``ids`` (within ``key_filter``), marked ``is_deleted`` at ``now``.

    Args:
        table: The destination table.
        key_filter: SQL condition narrowing the rows, e.g. ``time_clock_id = %s``.
        key_args: Its parameters.
        ids: Values of the table's ``id`` column to mark.
        json_columns: Columns holding JSON, decoded again so they reload as JSON.
        now: Epoch seconds (UTC) stored in ``deleted_at``.
    """
    if not ids:
        return []
    placeholders = ", ".join(["%s"] * len(ids))
    columns, rows = query_loaded(
        table,
        f"select * from {{table}} where {key_filter} and id in ({placeholders})",
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


def only_changed(records: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    """The records whose digest differs from the one this resource loaded last.

    For endpoints without a modified-since filter or timestamp: the digests of loaded records are
    kept in the resource's dlt state, which commits with the load (an interrupted load leaves
    them unchanged).
    """
    digests: dict[str, str] = dlt.current.resource_state().setdefault("digests", {})
    changed = []
    for record in records:
        digest = content_hash(record)
        if digests.get(str(record[key])) != digest:
            digests[str(record[key])] = digest
            changed.append(record)
    return changed
