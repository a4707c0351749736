"""The writer locks of several accounts' syncs (:mod:`pipelines.writers`): one advisory lock
per account on PostgreSQL (the ``default`` account's keeps its name), one turn at a DuckDB file
shared by a process's syncs, loads one at a time, and other jobs kept waiting."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from core.project import Project
from pipelines.warehouse import WarehouseBusyError
from pipelines.writers import load_turn, syncs_beside, warehouse_writer, writer_job


def project_of(tmp_path: Path, account: str = "default") -> Project:
    from conftest import account_project

    project = account_project(tmp_path / "warehouse.duckdb", "http://127.0.0.1:9", "k")
    return project.model_copy(update={"account": account}).with_settings(writer_timeout=0.3)


def test_each_account_syncs_under_its_own_lock_name_the_default_under_the_old_one(
    tmp_path: Path,
) -> None:
    assert writer_job("sync", project_of(tmp_path)) == "sync"
    assert writer_job("sync", project_of(tmp_path, "north")) == "sync:north"
    assert writer_job("models", project_of(tmp_path, "north")) == "models"


def test_a_process_s_syncs_share_the_file_turn_while_another_job_waits(tmp_path: Path) -> None:
    north, south = project_of(tmp_path, "north"), project_of(tmp_path, "south")
    inside = threading.Barrier(3, timeout=10)
    done = threading.Event()
    seen: list[bool] = []

    def sync(project: Project) -> None:
        with warehouse_writer("sync", project):
            inside.wait()  # both syncs hold the turn at once
            seen.append(syncs_beside(project))
            done.wait(10)

    threads = [threading.Thread(target=sync, args=(p,)) for p in (north, south)]
    for thread in threads:
        thread.start()
    inside.wait()
    with (
        pytest.raises(WarehouseBusyError, match="fold: another job held"),
        warehouse_writer("fold", north),
    ):
        pass
    done.set()
    for thread in threads:
        thread.join()
    assert seen == [True, True]
    with warehouse_writer("fold", north):  # the last sync to leave gave the turn back
        assert not syncs_beside(north)


def test_loads_into_one_duckdb_file_take_turns(tmp_path: Path) -> None:
    north, south = project_of(tmp_path, "north"), project_of(tmp_path, "south")
    loading: list[int] = []
    overlapped: list[bool] = []

    def load(project: Project) -> None:
        with load_turn(project):
            loading.append(1)
            overlapped.append(len(loading) > 1)
            time.sleep(0.05)
            loading.pop()

    threads = [threading.Thread(target=load, args=(p,)) for p in (north, south, north)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlapped == [False, False, False]
