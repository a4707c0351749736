"""dlt writes each Arrow table a source yields as it comes (``write_each_batch``), instead of
gathering 5,000 rows per table in memory first; the sync sets it for the Connecteam source."""

from __future__ import annotations

from pathlib import Path

import dlt
import pyarrow as pa
import pyarrow.parquet as pq
from conftest import point_at

from pipelines import run_sync
from pipelines.warehouse import write_each_batch
from sources.configuration import resolve


def extracted_row_groups(tmp_path: Path, name: str, each_batch: bool) -> list[int]:
    """Row groups of each file a source named ``name`` (a name of this test only: the setting
    stays in the process's dlt configuration) extracts from three tables."""

    @dlt.source(name=name)
    def three_tables():
        @dlt.resource(name="users")
        def users():
            for start in (0, 10, 20):
                yield pa.table({"id": list(range(start, start + 10))})

        return users

    pipeline = dlt.pipeline(name, destination="duckdb", pipelines_dir=str(tmp_path / name))
    if each_batch:
        write_each_batch(pipeline, name)
    pipeline.extract(three_tables(), loader_file_format="parquet")
    files = sorted((tmp_path / name).rglob("users.*.parquet"))
    return [pq.ParquetFile(path).num_row_groups for path in files]


def test_each_batch_is_written_as_it_comes(tmp_path):
    assert extracted_row_groups(tmp_path, "gathered", each_batch=False) == [1]
    assert extracted_row_groups(tmp_path, "each_batch", each_batch=True) == [3]


def test_the_sync_writes_each_batch(start_emulator, monkeypatch, warehouse):
    point_at(monkeypatch, start_emulator(users=5))
    run_sync(("users",), project=resolve())
    assert dlt.config["sources.connecteam.data_writer.buffer_max_items"] == 1
