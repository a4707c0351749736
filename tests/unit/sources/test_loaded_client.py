"""What an extract reads of the warehouse (``sources.connecteam.loaded.query_loaded``): inside
``one_sql_client`` every query of the running pipeline shares one SQL client, a failing query
leaves it usable, and it is closed when the block ends; outside it each query has its own.
Runs a dlt pipeline in-process into a DuckDB file of the test's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dlt
import pytest

from sources.connecteam.loaded import live_keys, one_sql_client, query_loaded


@pytest.fixture
def pipeline(tmp_path: Path) -> Any:
    pipeline = dlt.pipeline(
        pipeline_name="loaded", pipelines_dir=str(tmp_path / "pipelines"),
        destination=dlt.destinations.duckdb(str(tmp_path / "warehouse.duckdb")),
        dataset_name="raw",
    )  # fmt: skip
    pipeline.run([{"id": n, "is_deleted": n == 3} for n in range(1, 5)], table_name="things")
    return pipeline


def counting_clients(pipeline: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The SQL clients ``pipeline`` makes from now on, in order."""
    made: list[Any] = []
    make = pipeline.sql_client

    def sql_client(*args: Any, **kwargs: Any) -> Any:
        made.append(make(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(pipeline, "sql_client", sql_client)
    return made


def extract_reading(pipeline: Any, shared: bool) -> list[Any]:
    """One extract whose resource asks the warehouse four times (one of them of a table that
    does not exist); what each answered."""
    answers: list[Any] = []

    @dlt.resource(name="reader")
    def reader() -> Any:
        answers.append(live_keys("things", "id"))
        answers.append(query_loaded("missing", "select * from {table}"))
        answers.append(query_loaded("things", "select count(*) from {table}"))
        yield {"id": 1}

    if shared:
        with one_sql_client(pipeline):
            pipeline.extract(reader())
    else:
        pipeline.extract(reader())
    return answers


def test_an_extract_inside_the_block_asks_through_one_client_closed_at_its_end(
    pipeline, monkeypatch
):
    made = counting_clients(pipeline, monkeypatch)
    answers = extract_reading(pipeline, shared=True)
    assert sorted(answers[0]) == [("1",), ("2",), ("4",)]  # the live rows
    # the missing table reads as nothing, and the query after it still answers
    assert answers[1:] == [([], []), (["count_star()"], [(4,)])]
    assert len(made) == 1
    assert made[0].native_connection is None  # closed with the block


def test_outside_the_block_each_query_has_its_own_client_and_reads_the_same(pipeline, monkeypatch):
    made = counting_clients(pipeline, monkeypatch)
    shared = extract_reading(pipeline, shared=True)
    made.clear()
    assert extract_reading(pipeline, shared=False) == shared
    assert len(made) == 4  # live_keys asks twice (the columns, then the rows)
    assert all(client.native_connection is None for client in made)


def test_with_no_pipeline_active_nothing_is_loaded(pipeline):
    from dlt.common.configuration.container import Container
    from dlt.common.pipeline import PipelineContext

    assert query_loaded("things", "select count(*) from {table}")[1] == [(4,)]  # the last run's
    Container()[PipelineContext].deactivate()
    assert query_loaded("things", "select count(*) from {table}") == ([], [])
