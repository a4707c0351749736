"""dbt's parse cache holds across DuckDB warehouses: :func:`pipelines.dbt_runner.run_dbt` hands
dbt the warehouse's file name and runs it in the file's folder, so a second warehouse of the same
name in another folder parses no file again (dbt's ``perf_info.json``); a configuration run in
between (another warehouse name) keeps its own cache and leaves this one for its next run; the
working directory is given back, after a failed run too."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import offline_project

from pipelines import dbt_parse_cache
from pipelines.dbt_runner import run_dbt, target_dir


def parse(warehouse: Path) -> dict[str, object]:
    """``dbt parse`` for ``warehouse`` (its folder made); dbt's account of it
    (``perf_info.json``)."""
    warehouse.parent.mkdir(parents=True, exist_ok=True)
    project = offline_project(warehouse)
    assert run_dbt(["parse"], warehouse, project=project).success
    info: dict[str, object] = json.loads(
        (target_dir(project.settings) / "perf_info.json").read_text()
    )
    return info


def test_a_warehouse_of_the_same_name_elsewhere_parses_nothing_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WFM_SYNC_DBT_TARGET_DIR", str(tmp_path / "target"))  # no cache yet
    here = os.getcwd()
    first = parse(tmp_path / "a" / "warehouse.duckdb")
    second = parse(tmp_path / "b" / "warehouse.duckdb")
    assert isinstance(first["parsed_path_count"], int) and first["parsed_path_count"] > 100
    assert second["parsed_path_count"] == 0
    assert os.getcwd() == here


def test_each_configuration_keeps_its_parse_cache_in_one_target_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two configurations taking turns in one target folder (here two warehouse names: the dbt
    variable ``warehouse`` differs) each parse the project once; a third, with one cache kept
    aside at most, pushes the least recently used out."""
    target = tmp_path / "target"
    monkeypatch.setenv("WFM_SYNC_DBT_TARGET_DIR", str(target))
    monkeypatch.setattr(dbt_parse_cache, "KEEP", 1)
    counts = [
        parse(tmp_path / name)["parsed_path_count"]
        for name in ("a/main.duckdb", "b/other.duckdb", "c/main.duckdb", "d/other.duckdb")
    ]
    assert isinstance(counts[0], int) and counts[0] > 100
    assert counts == [counts[0], counts[0], 0, 0]  # each name parsed once, then read again
    kept = target / dbt_parse_cache.KEPT
    assert len(list(kept.glob("*.msgpack"))) == 1  # "main"'s, while "other"'s is in place
    assert parse(tmp_path / "e" / "third.duckdb")["parsed_path_count"] == counts[0]
    assert parse(tmp_path / "f" / "main.duckdb")["parsed_path_count"] == counts[0]  # pushed out
    assert parse(tmp_path / "g" / "third.duckdb")["parsed_path_count"] == 0  # the one kept


def test_the_working_directory_is_given_back_after_a_failed_run(tmp_path: Path) -> None:
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    warehouse.parent.mkdir()
    project = offline_project(warehouse)
    here = os.getcwd()
    assert not run_dbt(["parse", "--no-such-option"], warehouse, project=project).success
    assert os.getcwd() == here


def test_a_warehouse_whose_folder_does_not_exist_yet_is_parsed_by_its_path(
    tmp_path: Path,
) -> None:
    warehouse = tmp_path / "not-yet" / "warehouse.duckdb"
    project = offline_project(warehouse)
    assert run_dbt(["parse"], warehouse, project=project).success
    assert not warehouse.parent.exists()


def test_a_target_folder_that_cannot_be_written_is_named_with_its_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("WFM_SYNC_DBT_TARGET_DIR", str(tmp_path / "a-file" / "target"))
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    warehouse.parent.mkdir()
    with pytest.raises(OSError, match="check WFM_SYNC_DBT_TARGET_DIR") as raised:
        run_dbt(["parse"], warehouse, project=offline_project(warehouse))
    assert str(tmp_path / "a-file" / "target") in str(raised.value)
