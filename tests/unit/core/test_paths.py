"""The project's paths are worked out in one place (``core.paths``): every default beside the
warehouse file, each setting moving only its own path, and the configured warehouse taken from
dlt's ``DESTINATION__DUCKDB__CREDENTIALS`` relative to the project's home."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from core import settings
from core.paths import paths_beside, paths_in
from sources.configuration import resolve


def test_every_default_sits_beside_the_warehouse(tmp_path: Path) -> None:
    paths = paths_beside(tmp_path / "w" / "warehouse.duckdb")
    assert paths.snapshot == tmp_path / "w" / "analytics.duckdb"
    assert paths.report == tmp_path / "w" / "report.html"
    assert paths.parquet_dir == tmp_path / "w" / "marts"
    assert paths.run_log == tmp_path / "w" / "runs.jsonl"
    assert paths.pipelines_dir == tmp_path / "w" / "pipelines"
    assert paths_in(tmp_path / "w") == paths


def test_a_setting_moves_only_its_own_path(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("WFM_SYNC_REPORT", str(tmp_path / "elsewhere" / "r.html"))
    paths = paths_beside(tmp_path / "warehouse.duckdb", settings.current())
    assert paths.report == tmp_path / "elsewhere" / "r.html"
    assert paths.snapshot == tmp_path / "analytics.duckdb"


def test_the_configured_project_takes_its_paths_from_the_one_function(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("DLT_PROJECT_DIR", str(tmp_path))
    monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", "data/x/warehouse.duckdb")
    monkeypatch.setenv("WFM_SYNC_RUN_LOG", "logs/runs.jsonl")
    project = resolve()
    paths = project.paths
    assert paths.warehouse == tmp_path / "data" / "x" / "warehouse.duckdb"
    assert paths.run_log == tmp_path / "logs" / "runs.jsonl"  # relative to the project's home
    assert paths == paths_beside(paths.warehouse, project.settings)
    assert paths.pipelines_dir == tmp_path / "data" / "x" / "pipelines"


@pytest.mark.parametrize("value", ["euro", "E1R", "€UR", "US"])
def test_a_currency_that_is_no_iso_code_is_named(value: str, monkeypatch) -> None:
    monkeypatch.setenv("WFM_SYNC_CURRENCY", value)
    with pytest.raises(ValidationError, match="WFM_SYNC_CURRENCY"):
        settings.current()


def test_a_currency_is_upper_cased(monkeypatch) -> None:
    monkeypatch.setenv("WFM_SYNC_CURRENCY", " eur ")
    assert settings.current().currency == "EUR"
