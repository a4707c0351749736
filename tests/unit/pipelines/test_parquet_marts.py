"""Every publish writes the marts as Parquet (``pipelines.parquet``), swapped in atomically: a
reader holding a file keeps reading it through the next publishes, a new reader gets the new
one, and the manifest's row counts are the files'. Real DuckDB files, real Parquet files read
with pyarrow."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq

from pipelines.parquet import MANIFEST, VERSIONS
from pipelines.publish import publish_snapshot
from sources.configuration import resolve


def make_warehouse(path: Path, shifts: int) -> None:
    with duckdb.connect(str(path)) as con:
        con.execute("create schema if not exists marts")
        con.execute("create schema if not exists staging")
        con.execute(
            "create or replace table marts.fct_shifts as select range as shift_id, "
            "'2026-03-01'::date + (range % 7)::int as local_date, range * 0.5 as scheduled_hours "
            f"from range({shifts})"
        )
        con.execute("create or replace table marts.dim_users as select 1 as user_id, 'Zoë' as name")
        con.execute("create or replace view staging.stg_x as select 1 as x")  # not a mart


def test_marts_as_parquet_swapped_under_an_open_reader(tmp_path, monkeypatch):
    warehouse = tmp_path / "warehouse.duckdb"
    monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(warehouse))
    marts = tmp_path / "marts"
    make_warehouse(warehouse, 1000)
    first = publish_snapshot(warehouse, project=resolve())
    assert first.parquet_dir == str(marts.absolute())
    assert first.parquet_tables == {"dim_users": 1, "fct_shifts": 1000}
    assert sorted(p.name for p in marts.iterdir()) == [MANIFEST, "dim_users.parquet",
                                                       "fct_shifts.parquet"]  # fmt: skip
    manifest = json.loads((marts / MANIFEST).read_text())
    assert manifest["tables"] == first.parquet_tables

    held = pq.ParquetFile(marts / "fct_shifts.parquet")  # a reader opens it, reads later
    for n, size in enumerate((2000, 3000)):
        make_warehouse(warehouse, size)
        publish_snapshot(warehouse, project=resolve())
        # the reader keeps reading the file it opened, whole and without error, even after its
        # folder was pruned (second round)
        old = held.read()
        assert old.num_rows == 1000 and old.column("shift_id").to_pylist()[-1] == 999, n
        fresh = pq.read_table(marts / "fct_shifts.parquet")
        assert fresh.num_rows == size
        manifest = json.loads((marts / MANIFEST).read_text())
        assert manifest["tables"]["fct_shifts"] == size
        assert manifest["published_at"] >= first.published_at
        assert pq.read_table(marts / "dim_users.parquet").column("name").to_pylist() == ["Zoë"]
    held.close()
    # the current folder and the one before it are kept
    assert len(list((tmp_path / VERSIONS).iterdir())) == 2
    # DuckDB and any file reader see the same rows as the snapshot
    with duckdb.connect() as con:
        (count,) = con.execute(f"select count(*) from '{marts / 'fct_shifts.parquet'}'").fetchone()
    assert count == 3000


def test_a_folder_left_where_the_link_goes_is_moved_aside(tmp_path, monkeypatch):
    warehouse = tmp_path / "warehouse.duckdb"
    monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(warehouse))
    out = tmp_path / "files" / "marts"
    monkeypatch.setenv("WFM_SYNC_PARQUET_DIR", str(out))
    out.mkdir(parents=True)
    (out / "by_hand.parquet").write_bytes(b"not ours")
    make_warehouse(warehouse, 10)
    summary = publish_snapshot(warehouse, project=resolve())
    assert out.is_symlink() and summary.parquet_tables["fct_shifts"] == 10
    publish_snapshot(warehouse, project=resolve())
    publish_snapshot(
        warehouse, project=resolve()
    )  # folders get pruned; what someone put there is never lost
    kept = [p for p in out.parent.iterdir() if (p / "by_hand.parquet").exists()]
    assert [p.name.startswith("marts.before-") for p in kept] == [True]


def test_a_publish_removes_the_temporary_snapshot_a_killed_one_left(tmp_path, monkeypatch):
    """A publish killed between writing its temporary snapshot and renaming it leaves
    ``.analytics.duckdb.<hex>.tmp`` and its WAL (only the killed process would have removed
    them); the next publish removes them, and nothing else."""
    warehouse = tmp_path / "warehouse.duckdb"
    monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(warehouse))
    make_warehouse(warehouse, 10)
    left = [tmp_path / f".analytics.duckdb.{'ab12' * 8}.tmp",
            tmp_path / f".analytics.duckdb.{'ab12' * 8}.tmp.wal"]  # fmt: skip
    theirs = [tmp_path / ".analytics.duckdb.notes.tmp", tmp_path / ".other.duckdb.ab12.tmp"]
    for path in left + theirs:
        path.write_bytes(b"x" * 1000)
    summary = publish_snapshot(warehouse, project=resolve())
    assert summary.snapshot == str(tmp_path / "analytics.duckdb")
    assert [p.exists() for p in left + theirs] == [False, False, True, True]
