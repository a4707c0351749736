"""A load job cut short after its rows reached the staging table runs again when the package is
resumed; the resumed merge ranks the staged rows by key, so no row is loaded twice
(``pipelines.warehouse._rank_staged_rows_again``). Before: with the sync's "staged rows unique"
promise, the merge inserted both copies (a ``test_kill`` run found 12,000 users for 6,000)."""

from __future__ import annotations

import shutil
from pathlib import Path

import dlt
import duckdb
import pytest
from conftest import point_at, query

from pipelines import run_sync
from sources.configuration import resolve


def test_a_job_staged_before_the_interruption_is_not_merged_twice(
    start_emulator, warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = start_emulator(users=40, forms=1, schedulers=1, shifts=10)
    point_at(monkeypatch, server)
    run_sync(["users"], project=resolve())  # the tables, staging included, exist
    server.state.dataset.mutate(users=40)  # every user changed: the next package holds them all

    def interrupted(self: dlt.Pipeline, *args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("killed before the load")

    with monkeypatch.context() as patch:
        patch.setattr(dlt.Pipeline, "load", interrupted)
        with pytest.raises(KeyboardInterrupt):
            run_sync(["users"], project=resolve())
    root = warehouse.parent / "pipelines" / "connecteam" / "load" / "normalized"
    (package,) = [p for p in root.iterdir() if p.is_dir()]
    (job,) = (package / "new_jobs").glob("users.*.parquet")
    # the state a kill leaves in that instant: the job's rows committed to the staging table,
    # the job file not yet moved on from started_jobs
    with duckdb.connect(str(warehouse)) as con:
        con.execute("delete from connecteam_staging.users")
        con.execute(
            f"insert into connecteam_staging.users by name select * from read_parquet('{job}')"
        )
    shutil.move(job, package / "started_jobs" / job.name)

    summary = run_sync(["users"], project=resolve())
    assert summary.resumed_packages == 1
    assert query(warehouse, "select count(*), count(distinct user_id) from connecteam.users") == [
        (40, 40)
    ]
