"""Old versions of the dlt state leave the warehouse after each load
(:mod:`pipelines.state_history`); the newest stays, and a pipeline with no local folder
restores it. Real DuckDB files; the sync against the emulator as a real server."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import dlt
import pytest
from conftest import point_at, query

from pipelines import run_sync
from pipelines.state_history import prune_after_load, prune_state_history
from sources.configuration import resolve

STATES = "select pipeline_name, version from connecteam._dlt_pipeline_state order by 1, 2"


def counting_pipeline(name: str, warehouse: Path, pipelines_dir: Path) -> dlt.Pipeline:
    return dlt.pipeline(
        pipeline_name=name,
        pipelines_dir=str(pipelines_dir),
        destination=dlt.destinations.duckdb(str(warehouse)),
        dataset_name="connecteam",
    )


def run_counting(pipeline: dlt.Pipeline, n: int) -> None:
    """One load whose state differs from the last one's (``n`` in the resource's state)."""

    @dlt.resource(name="ticks", write_disposition="append")
    def ticks() -> Any:
        dlt.current.resource_state()["n"] = n
        yield {"n": n}

    pipeline.run(ticks())


def test_only_the_newest_versions_stay_and_a_new_folder_restores_the_newest(tmp_path: Path):
    warehouse = tmp_path / "warehouse.duckdb"
    local = tmp_path / "pipelines"
    nightly = counting_pipeline("nightly", warehouse, local)
    other = counting_pipeline("other", warehouse, local)
    run_counting(other, 0)
    run_counting(other, 1)
    for n in range(5):
        run_counting(nightly, n)
    versions = [v for name, v in query(warehouse, STATES) if name == "nightly"]
    assert len(versions) == 5

    assert prune_state_history(nightly) == 2
    assert [v for name, v in query(warehouse, STATES) if name == "nightly"] == versions[2:]
    assert [name for name, _ in query(warehouse, STATES)].count("other") == 2  # not its own
    assert prune_state_history(nightly) == 0  # nothing more to remove
    assert prune_state_history(nightly, keep=1) == 2

    shutil.rmtree(local)  # a new machine: the state comes from the warehouse
    restored = counting_pipeline("nightly", warehouse, tmp_path / "elsewhere")
    restored.sync_destination()
    assert restored.state["sources"]["nightly"]["resources"]["ticks"]["n"] == 4

    with pytest.raises(ValueError, match="at least 1"):
        prune_state_history(restored, keep=0)


def test_a_version_of_a_load_not_completed_is_kept(tmp_path: Path):
    """A state row whose load is not in ``_dlt_loads`` as completed (a package that failed half
    loaded) does not count among the kept versions, and is not removed when newer."""
    warehouse = tmp_path / "warehouse.duckdb"
    pipeline = counting_pipeline("nightly", warehouse, tmp_path / "pipelines")
    for n in range(4):
        run_counting(pipeline, n)
    import duckdb

    with duckdb.connect(str(warehouse)) as db:  # the newest row's load: not completed
        db.execute(
            "delete from connecteam._dlt_loads where load_id = (select _dlt_load_id from "
            "connecteam._dlt_pipeline_state order by version desc limit 1)"
        )
    versions = [v for _, v in query(warehouse, STATES)]
    assert prune_state_history(pipeline, keep=2) == 1  # kept: 2 completed and the newer one
    assert [v for _, v in query(warehouse, STATES)] == versions[1:]


def test_the_newest_loads_are_kept_whatever_their_versions(tmp_path: Path):
    """dlt restores the newest completed load's row (by load id), so that is the order kept:
    the oldest load's row goes even when its version is the highest."""
    warehouse = tmp_path / "warehouse.duckdb"
    pipeline = counting_pipeline("nightly", warehouse, tmp_path / "pipelines")
    for n in range(4):
        run_counting(pipeline, n)
    import duckdb

    by_load = "select _dlt_load_id from connecteam._dlt_pipeline_state order by 1"
    loads = [row[0] for row in query(warehouse, by_load)]
    with duckdb.connect(str(warehouse)) as db:
        db.execute(
            "update connecteam._dlt_pipeline_state set version = 999 where _dlt_load_id = ?",
            [loads[0]],
        )
    assert prune_state_history(pipeline) == 1
    assert [row[0] for row in query(warehouse, by_load)] == loads[1:]


def test_a_prune_that_fails_is_a_warning_not_the_sync_s_failure(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    """Nothing loaded yet: the state and loads tables do not exist, the query fails."""
    project = resolve(tmp_path / "warehouse.duckdb")
    pipeline = counting_pipeline("nightly", project.warehouse, tmp_path / "pipelines")
    with caplog.at_level("WARNING", logger="pipelines.state_history"):
        prune_after_load(pipeline, project)
    assert "kept the old versions of the nightly pipeline's state this time" in caplog.text


def test_nightly_syncs_keep_three_versions_of_the_state(start_emulator, warehouse, monkeypatch):
    """Digests of the documents change at every sync (``mutate``), so every load writes a new
    state; the warehouse keeps three, and a sync with no local pipeline folder still loads
    only what changed."""
    server = start_emulator(users=30, forms=1, schedulers=1, shifts=10)
    point_at(monkeypatch, server)
    for _ in range(5):
        run_sync(["user_documents"], project=resolve())
        server.control("mutate", {"documents": 2})
    assert len(query(warehouse, STATES)) == 3
    shutil.rmtree(warehouse.parent / "pipelines")
    assert run_sync(["user_documents"], project=resolve()).rows["user_documents"] == 2


def test_nightly_syncs_on_postgresql_keep_three_versions_too(
    start_emulator, warehouse, monkeypatch, postgres: str
):
    """On PostgreSQL the prune runs under the sync's advisory writer lock
    (:func:`pipelines.writers.confirm_writer`)."""
    import psycopg2

    server = start_emulator(users=30, forms=1, schedulers=1, shifts=10)
    point_at(monkeypatch, server)
    monkeypatch.setenv("WFM_SYNC_DESTINATION", "postgres")
    monkeypatch.setenv("DESTINATION__POSTGRES__CREDENTIALS", postgres)
    for _ in range(4):
        run_sync(["user_documents"], project=resolve())
        server.control("mutate", {"documents": 2})
    with psycopg2.connect(postgres) as db, db.cursor() as cursor:
        cursor.execute(
            "select count(*) from connecteam._dlt_pipeline_state where pipeline_name = 'connecteam'"
        )
        assert cursor.fetchone() == (3,)


def test_on_postgresql_too(postgres: str, tmp_path: Path):
    import psycopg2

    pipeline = dlt.pipeline(
        pipeline_name="nightly",
        pipelines_dir=str(tmp_path / "pipelines"),
        destination=dlt.destinations.postgres(postgres),
        dataset_name="connecteam",
    )
    for n in range(5):
        run_counting(pipeline, n)
    assert prune_state_history(pipeline) == 2
    with psycopg2.connect(postgres) as db, db.cursor() as cursor:
        cursor.execute(
            "select count(*) from connecteam._dlt_pipeline_state where pipeline_name = 'nightly'"
        )
        assert cursor.fetchone() == (3,)
    restored = dlt.pipeline(
        pipeline_name="nightly",
        pipelines_dir=str(tmp_path / "elsewhere"),
        destination=dlt.destinations.postgres(postgres),
        dataset_name="connecteam",
    )
    restored.sync_destination()
    assert restored.state["sources"]["nightly"]["resources"]["ticks"]["n"] == 4
