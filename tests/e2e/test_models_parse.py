"""dbt parses only what changed between runs: the variables ``wfm-sync`` passes stay the same
from one run to the next unless the clock is pinned (``WFM_SYNC_NOW``), because dbt re-parses the
whole project (about 10 s) whenever a variable changes; a configuration seen before finds its
own cache again."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import pytest

from pipelines.dbt_runner import run_dbt
from sources.configuration import resolve

REPARSE = "Unable to do partial parsing because"
"""dbt's log line when it parses the whole project: its cache missing (``saved manifest not
found``) or written for other variables."""


def parse_log(target: Path, warehouse: Path) -> str:
    """dbt's log lines of one ``dbt parse`` of the project on ``warehouse``."""
    log = target / "logs" / "dbt.log"
    before = log.stat().st_size if log.exists() else 0
    result = run_dbt(["parse"], warehouse, project=resolve())
    assert result.success, result.exception
    with log.open(encoding="utf-8") as handle:
        handle.seek(before)
        return handle.read()


def test_with_the_real_clock_the_next_run_reuses_the_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "dbt"
    monkeypatch.setenv("WFM_SYNC_DBT_TARGET_DIR", str(target))
    monkeypatch.delenv("WFM_SYNC_NOW", raising=False)
    warehouse = tmp_path / "warehouse.duckdb"
    duckdb.connect(str(warehouse)).close()
    quiet = parse_log(target, warehouse)
    assert "Starting full parse" in quiet and "[debug]" not in quiet  # the file log at info
    monkeypatch.setenv("WFM_SYNC_DBT_VERBOSE", "1")  # dbt's debug file log says it skipped
    parse_log(target, warehouse)
    time.sleep(1.1)  # the real clock has moved on by the next run
    second = parse_log(target, warehouse)
    assert REPARSE not in second
    assert "Nothing changed, skipping partial parsing" in second
    # a pinned clock that moves is a changed variable: the whole project is parsed again
    monkeypatch.setenv("WFM_SYNC_NOW", "2026-12-20T00:00:00Z")
    parse_log(target, warehouse)
    monkeypatch.setenv("WFM_SYNC_NOW", "2026-12-21T00:00:00Z")
    assert REPARSE in parse_log(target, warehouse)
    # the cache of each configuration was kept: the clock pinned back finds its own again
    monkeypatch.setenv("WFM_SYNC_NOW", "2026-12-20T00:00:00Z")
    assert REPARSE not in parse_log(target, warehouse)
