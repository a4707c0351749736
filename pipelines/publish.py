"""The ``publish`` job: an atomic, read-only snapshot of the warehouse for BI tools.

The snapshot (default ``analytics.duckdb`` beside the warehouse file; setting ``snapshot``,
``WFM_SYNC_SNAPSHOT``, to change) holds every table and view of the published schemas as plain
tables, built in a temporary file beside it and moved into place with one durable ``rename``
(:func:`core.durable.replace_durably`). A reader
that opened the old snapshot keeps reading the old file until it reconnects; a new reader sees
the new one; nobody ever sees a half-built state, and an open dashboard never holds a lock on the
warehouse the next sync writes. Every mart is also written as Parquet, swapped in the same way
(:mod:`pipelines.parquet`).

Only what analysts need is published: the dbt schemas ``staging`` and ``marts`` (which keep chat
message text out unless the dbt variable ``chat_message_text`` is set) and schema ``health``, a
summary of the raw data without any of it (:data:`HEALTH_TABLES`: rows and last load per raw
table, quarantined webhook bodies counted per day and reason, quarantined API items counted per
stream and reason). The raw schemas ``connecteam`` and
``webhooks`` (webhook payloads with chat text, raw quarantined bodies) are copied only with the
setting ``publish_raw_schemas`` (``WFM_SYNC_PUBLISH_RAW_SCHEMAS=1``).
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from core.durable import replace_durably
from core.project import Project

from .parquet import write_marts
from .runs import records_run
from .writers import writes_warehouse

logger = logging.getLogger("pipelines.publish")

PUBLISHED_SCHEMAS = ("marts", "staging")
"""The dbt schemas every publish copies."""
RAW_SCHEMAS = ("connecteam", "webhooks")
"""The raw schemas, copied only with the setting ``publish_raw_schemas``."""
HEALTH_SCHEMA = "health"
HEALTH_TABLES = ("raw_tables", "quarantine", "stream_quarantine")
"""Schema ``health`` of the snapshot, always published:

* ``raw_tables``: ``table_name`` (``schema.table``), ``row_count``, ``last_load_epoch`` (epoch
  seconds of the newest dlt load that wrote it), one row per raw table with ``_dlt_load_id``;
* ``quarantine``: ``received_on`` (UTC date), ``reason`` (cut to 200 characters), ``bodies``
  (count) of the webhook bodies the receiver refused and kept; no body;
* ``stream_quarantine``: ``stream``, ``reason`` (its quoted or numeric key values replaced by
  ``…``), ``items`` (count), ``last_seen_epoch`` (epoch seconds a sync last received one) of
  the listed items the sync could not load and kept in ``connecteam.quarantine``
  (:mod:`sources.connecteam.contract`); no item.
"""


def published_schemas(raw_schemas: bool) -> tuple[str, ...]:
    """The schemas a publish copies: :data:`PUBLISHED_SCHEMAS`, plus :data:`RAW_SCHEMAS` when
    ``raw_schemas`` (setting ``publish_raw_schemas``, ``WFM_SYNC_PUBLISH_RAW_SCHEMAS``)."""
    return PUBLISHED_SCHEMAS + RAW_SCHEMAS if raw_schemas else PUBLISHED_SCHEMAS


@dataclass
class PublishSummary:
    """What one publish did.

    Attributes:
        snapshot: The published file.
        tables: Rows per published ``schema.table``.
        parquet_dir: Where the marts were written as Parquet (:mod:`pipelines.parquet`).
        parquet_tables: Rows per mart written as Parquet.
        published_at: UTC epoch seconds.
        duration_seconds: Wall time.
    """

    snapshot: str = ""
    tables: dict[str, int] = field(default_factory=dict)
    parquet_dir: str = ""
    parquet_tables: dict[str, int] = field(default_factory=dict)
    published_at: float = 0.0
    duration_seconds: float = 0.0


def publish_skip_reason(project: Project) -> str | None:
    """Why publishing does not apply to ``project``'s warehouse, as a one-line note; ``None``
    on DuckDB. The snapshot and the Parquet marts are copies of a DuckDB file: on PostgreSQL
    (``WFM_SYNC_DESTINATION=postgres``) readers query its ``marts`` schema instead."""
    if project.destination == "duckdb":
        return None
    return (
        "publish skipped: the snapshot and the Parquet marts are DuckDB-only; with "
        "WFM_SYNC_DESTINATION=postgres the marts are in the PostgreSQL schema marts"
    )


@records_run("publish", lambda s: {"tables": len(s.tables), "snapshot": s.snapshot})
@writes_warehouse("publish")
def publish_snapshot(
    warehouse: Path | None = None,
    snapshot: Path | None = None,
    raw_schemas: bool | None = None,
    *,
    project: Project,
) -> PublishSummary:
    """Copy the published schemas of the warehouse and the ``health`` summary
    (:data:`HEALTH_TABLES`) into a new snapshot file, atomically and durably, then write every
    mart as Parquet (:func:`pipelines.parquet.write_marts`, under the project's ``parquet_dir``).

    Args:
        warehouse: Source DuckDB file (default: the project's warehouse).
        snapshot: Target file (default: the project's ``snapshot``).
        raw_schemas: Also copy the raw schemas :data:`RAW_SCHEMAS` (``None``: the setting
            ``publish_raw_schemas``); dlt's ``_dlt_*`` tables never.
        project: The project.

    Returns:
        A :class:`PublishSummary`.

    Raises:
        FileNotFoundError: The warehouse file does not exist.
        duckdb.Error: The copy failed; the previous snapshot (or Parquet folder) is untouched.
    """
    started = time.monotonic()
    source = (warehouse or project.warehouse).resolve()
    target = (snapshot or project.paths.snapshot).resolve()
    parquet = project.paths.parquet_dir.absolute()
    if not source.exists():
        raise FileNotFoundError(f"no warehouse at {source}: run `wfm-sync sync` first")
    target.parent.mkdir(parents=True, exist_ok=True)
    _sweep_leftovers(target)
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    summary = PublishSummary(snapshot=str(target))
    raw = project.settings.publish_raw_schemas if raw_schemas is None else raw_schemas
    schemas = published_schemas(raw)
    try:
        # Connect to the warehouse (sharing the database instance if this process already has it
        # open, as after an in-process dbt build) and write into the attached temporary file.
        with duckdb.connect(str(source)) as con:
            (catalog,) = con.execute("select current_database()").fetchone() or ("",)
            con.execute(f"attach '{_quote(temporary)}' as snapshot")
            summary.tables.update(_copy_schemas(con, catalog, schemas))
            summary.tables.update(_write_health(con, catalog))
            summary.published_at = time.time()
            _stamp(con, summary.published_at, source)
            con.execute("checkpoint snapshot")
            con.execute("detach snapshot")
            replace_durably(temporary, target)
            summary.parquet_dir = str(parquet)
            summary.parquet_tables = write_marts(con, catalog, parquet, summary.published_at)
    finally:
        for leftover in (temporary, temporary.with_name(temporary.name + ".wal")):
            leftover.unlink(missing_ok=True)
    summary.duration_seconds = round(time.monotonic() - started, 2)
    logger.info(
        "published %d tables to %s in %.1f s", len(summary.tables), target, summary.duration_seconds
    )
    return summary


def _sweep_leftovers(target: Path) -> None:
    """Remove the temporary snapshots (and their WALs) a killed publish left beside ``target``:
    ``.<target name>.<hex>.tmp``. Only a publish writes them, holding the warehouse's writer
    lock, so none is in use when the next one starts."""
    left = [
        path
        for pattern in (f".{target.name}.*.tmp", f".{target.name}.*.tmp.wal")
        for path in target.parent.glob(pattern)
        if (part := path.name[len(target.name) + 2 :].split(".")[0])
        and all(c in "0123456789abcdef" for c in part)
    ]
    for path in left:
        path.unlink(missing_ok=True)
    if left:
        logger.info("removed %d temporary file(s) a stopped publish left", len(left))


def _stamp(con: duckdb.DuckDBPyConnection, published_at: float, source: Path) -> None:
    """Write the snapshot's ``main._published`` row: when (``published_at``, epoch seconds, as a
    UTC ``timestamptz``) and from which warehouse file."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S+00", time.gmtime(published_at))
    con.execute(
        "create table snapshot.main._published as select ?::timestamptz as published_at, "
        "? as source_warehouse",
        [stamp, str(source)],
    )


def _copy_schemas(
    con: duckdb.DuckDBPyConnection, catalog: str, schemas: tuple[str, ...]
) -> dict[str, int]:
    """Copy every table of ``schemas`` in ``catalog`` (dlt's ``_dlt_*`` tables left out) into
    the attached ``snapshot``, schema by schema; returns rows per ``schema.table`` copied."""
    placeholders = ", ".join("?" for _ in schemas)
    relations = con.execute(
        "select table_schema, table_name from information_schema.tables "
        f"where table_catalog = ? and table_schema in ({placeholders}) "
        "and not starts_with(table_name, '_dlt') order by table_schema, table_name",
        [catalog, *schemas],
    ).fetchall()
    for schema in sorted({s for s, _ in relations}):
        con.execute(f'create schema snapshot."{schema}"')
    copied = {}
    for schema, name in relations:
        con.execute(
            f'create table snapshot."{schema}"."{name}" as '
            f'select * from "{catalog}"."{schema}"."{name}"'
        )
        row = con.execute(f'select count(*) from snapshot."{schema}"."{name}"').fetchone()
        copied[f"{schema}.{name}"] = int(row[0]) if row else 0
    return copied


def _write_health(con: duckdb.DuckDBPyConnection, catalog: str) -> dict[str, int]:
    """Write schema ``health`` (:data:`HEALTH_TABLES`) of the attached ``snapshot`` from the raw
    schemas of ``catalog``: counts and times only, no raw value (a refused body's ``reason`` only
    by its category, the text before its first ``:``, since the rest may quote the body).
    Returns rows per table."""
    raw = con.execute(
        "select table_schema, table_name from information_schema.columns "
        "where table_catalog = ? and column_name = '_dlt_load_id' and table_schema in (?, ?) "
        "and not starts_with(table_name, '_dlt') order by table_schema, table_name",
        [catalog, *RAW_SCHEMAS],
    ).fetchall()
    con.execute(f"create schema snapshot.{HEALTH_SCHEMA}")
    loads = " union all ".join(
        f"select '{schema}.{name}' as table_name, count(*) as row_count, "
        "max(try_cast(_dlt_load_id as double)) as last_load_epoch "
        f'from "{catalog}"."{schema}"."{name}"'
        for schema, name in raw
    ) or (
        "select null::varchar as table_name, null::bigint as row_count, "
        "null::double as last_load_epoch where false"
    )
    con.execute(f"create table snapshot.{HEALTH_SCHEMA}.raw_tables as {loads} order by table_name")
    quarantine = (
        "select cast(received_at at time zone 'UTC' as date) as received_on, "
        "left(trim(split_part(coalesce(reason, '(none)'), ':', 1)), 200) as reason, "
        "count(*) as bodies "
        f'from "{catalog}".webhooks.quarantine group by all order by received_on, reason'
        if ("webhooks", "quarantine") in raw
        else "select null::date as received_on, null::varchar as reason, "
        "null::bigint as bodies where false"
    )
    con.execute(f"create table snapshot.{HEALTH_SCHEMA}.quarantine as {quarantine}")
    con.execute(
        f"create table snapshot.{HEALTH_SCHEMA}.stream_quarantine as {_items(raw, catalog)}"
    )
    counts = {}
    for table in HEALTH_TABLES:
        row = con.execute(f"select count(*) from snapshot.{HEALTH_SCHEMA}.{table}").fetchone()
        counts[f"{HEALTH_SCHEMA}.{table}"] = int(row[0]) if row else 0
    return counts


STREAM_QUARANTINE_SQL = """
select stream, regexp_replace(reason, $$'[^']*'|"[^"]*"|-?[0-9]+$$, '…', 'g') as reason,
    count(*) as items, max(seen_at) as last_seen_epoch
from "{catalog}".connecteam.quarantine group by all order by stream, reason
"""


def _items(raw: list[tuple[str, str]], catalog: str) -> str:
    """The query of ``health.stream_quarantine`` over ``catalog`` (empty when the warehouse
    has no ``connecteam.quarantine``: nothing was ever quarantined)."""
    if ("connecteam", "quarantine") in raw:
        return STREAM_QUARANTINE_SQL.format(catalog=catalog)
    return (
        "select null::varchar as stream, null::varchar as reason, null::bigint as items, "
        "null::bigint as last_seen_epoch where false"
    )


def _quote(path: Path) -> str:
    return str(path).replace("'", "''")
