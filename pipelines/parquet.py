"""The marts as Parquet files for readers that do not open DuckDB (pandas, Polars, Spark,
Evidence, any BI tool that reads files), written by every publish.

Layout, with the default ``<warehouse dir>/marts`` (setting ``parquet_dir``,
``WFM_SYNC_PARQUET_DIR``)::

    marts -> .marts-versions/20261124T180000Z-<ns>    a symbolic link, swapped in one rename
    .marts-versions/20261124T180000Z-<ns>/fct_shifts.parquet, ..., _published.json

A publish writes every mart of schema ``marts`` into a new folder, then its manifest
``_published.json`` (``{"published_at": <epoch s>, "published_at_utc": ..., "tables": {mart:
rows}}``), flushes the folder and every file in it to disk, then points the link at it with one
atomic, durable ``rename`` (:func:`core.durable.replace_durably`). A reader that opened
``marts/fct_shifts.parquet`` keeps reading the file it opened; a reader opening it afterwards gets
the new one; nobody sees a folder half written. The folder before the current one is kept; older
ones are removed (a reader still holding one of their files keeps reading it: POSIX keeps an
open file until it is closed).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from pathlib import Path

import duckdb

from core.durable import fsync_path, fsync_tree, replace_durably

VERSIONS = ".marts-versions"
MANIFEST = "_published.json"
KEEP = 2
"""Published folders kept: the current one and the one before it."""


def write_marts(
    con: duckdb.DuckDBPyConnection, catalog: str, target: Path, published_at: float
) -> dict[str, int]:
    """Write every table of schema ``marts`` of ``catalog`` as ``<table>.parquet`` into a new
    folder and swap ``target`` (a symbolic link) to it.

    Args:
        con: A connection that sees the warehouse as ``catalog``.
        catalog: The warehouse's catalog name in ``con``.
        target: The link readers open (``marts``); a real folder there from before is moved
            aside to ``<target>.before-<id>`` first (and left there).
        published_at: The publish's time, epoch seconds (UTC), written to the manifest.

    Returns:
        Rows per mart.

    Raises:
        duckdb.Error: A mart could not be written; the link still points at the previous folder.
        OSError: The folder or the link could not be made.
    """
    versions = target.parent / VERSIONS
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(published_at))
    # names sort in publish order, several publishes within one second included
    folder = versions / f"{stamp}-{time.time_ns():020d}"
    folder.mkdir(parents=True)
    rows: dict[str, int] = {}
    try:
        marts = con.execute(
            "select table_name from information_schema.tables "
            "where table_catalog = ? and table_schema = 'marts' order by table_name",
            [catalog],
        ).fetchall()
        for (name,) in marts:
            path = str(folder / f"{name}.parquet").replace("'", "''")
            con.execute(
                f'copy (select * from "{catalog}".marts."{name}") to \'{path}\' '
                "(format parquet, compression zstd)"
            )
            (count,) = con.execute(f"select count(*) from '{path}'").fetchone() or (0,)
            rows[name] = int(count)
        manifest = {
            "published_at": round(published_at, 3),
            "published_at_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(published_at)),
            "tables": rows,
        }
        (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        fsync_tree(folder)
        fsync_path(versions)  # the new folder's own entry
        _swap(target, folder)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    _prune(versions, keep=folder)
    return rows


def _swap(target: Path, folder: Path) -> None:
    """Point the link ``target`` at ``folder`` with one durable ``rename`` (a real folder at
    ``target`` is moved aside first)."""
    if target.exists() and not target.is_symlink():  # never pruned: not ours to remove
        aside = target.with_name(f"{target.name}.before-{uuid.uuid4().hex[:8]}")
        replace_durably(target, aside)
    link = target.with_name(f".{target.name}.{uuid.uuid4().hex}.link")
    os.symlink(os.path.relpath(folder, target.parent), link)
    try:
        replace_durably(link, target)
    except BaseException:
        link.unlink(missing_ok=True)
        raise


def _prune(versions: Path, keep: Path) -> None:
    """Remove published folders but the newest :data:`KEEP` (``keep``, the current, always
    stays)."""
    folders = sorted((p for p in versions.iterdir() if p.is_dir()), key=lambda p: p.name)
    for old in folders[:-KEEP]:
        if old != keep:
            shutil.rmtree(old, ignore_errors=True)
