"""The project's one clock: ``WFM_SYNC_NOW`` moves the sync's windows and the emulator's data
together, so the suite passes on any date."""

from __future__ import annotations

import time

import pytest
from conftest import point_at

from core.clock import now
from pipelines import STREAMS, run_sync
from sources.configuration import resolve


def test_now_reads_epoch_iso_and_date(monkeypatch):
    monkeypatch.setenv("WFM_SYNC_NOW", "1795132800")
    assert now() == 1_795_132_800
    monkeypatch.setenv("WFM_SYNC_NOW", "2026-11-20T00:00:00Z")
    assert now() == 1_795_132_800
    monkeypatch.setenv("WFM_SYNC_NOW", "2026-11-20")
    assert now() == 1_795_132_800
    monkeypatch.setenv("WFM_SYNC_NOW", "")
    assert abs(now() - time.time()) < 5


def test_a_bad_now_names_the_variable(monkeypatch):
    monkeypatch.setenv("WFM_SYNC_NOW", "next tuesday")
    with pytest.raises(ValueError, match="WFM_SYNC_NOW='next tuesday'"):
        now()


SIZE = {"users": 80, "forms": 2, "schedulers": 2, "shifts": 300, "time_activities": 120,
        "time_off_requests": 20, "tasks": 10}  # fmt: skip


def sync_at(moment: float, start_emulator, monkeypatch, tmp_path, name: str) -> dict[str, int]:
    """A full sync with the project's now at ``moment`` (the emulator's data placed around the
    same instant) into a warehouse of its own; rows per stream."""
    monkeypatch.setenv("WFM_SYNC_NOW", str(moment))
    monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(tmp_path / name / "w.duckdb"))
    from emulator.operations_data import OperationsConfig

    operations = OperationsConfig(
        time_activities=SIZE["time_activities"], time_off_requests=SIZE["time_off_requests"],
        tasks=SIZE["tasks"],
    )  # fmt: skip
    server = start_emulator(
        anchor=None, users=SIZE["users"], forms=SIZE["forms"], schedulers=SIZE["schedulers"],
        shifts=SIZE["shifts"], operations=operations,
    )  # fmt: skip
    point_at(monkeypatch, server)
    return run_sync(STREAMS, project=resolve()).rows


def test_the_same_rows_thirty_days_ahead(start_emulator, monkeypatch, tmp_path):
    today = time.time()
    rows_today = sync_at(today, start_emulator, monkeypatch, tmp_path, "today")
    rows_later = sync_at(today + 30 * 86_400, start_emulator, monkeypatch, tmp_path, "later")
    assert rows_today == rows_later
    assert all(n > 0 for n in rows_today.values()), rows_today
