"""The size and width that failed a nightly for memory: 40,000 users and 90,000 shift rows, every
record as wide as the provider's spec allows, synced with the default settings."""

from __future__ import annotations

import subprocess

import pytest
from conftest import WFM_SYNC, cli_env, query

from emulator.operations_data import OperationsConfig

SMALL_OPERATIONS = OperationsConfig(time_activities=500, form_submissions=20, jobs=20,
                                    time_off_requests=50, task_boards=2, tasks=50)  # fmt: skip


@pytest.mark.slow
def test_wide_spec_records_at_the_size_that_failed_sync_with_default_settings(
    start_emulator, tmp_path
):
    server = start_emulator(data="spec", spec_width="wide", seed=11, users=40_000, forms=40,
                            schedulers=3, shifts=90_000, operations=SMALL_OPERATIONS)  # fmt: skip
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    env = cli_env(server, warehouse)
    env.pop("WFM_SYNC_DUCKDB_MEMORY_LIMIT", None)  # the default, derived from the memory free
    done = subprocess.run([*WFM_SYNC, "sync", "--steps", "sync"], env=env, capture_output=True,
                          text=True, timeout=1500)  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    assert query(warehouse, "select count(*) from connecteam.users")[0][0] == 40_000
    (shifts,) = query(warehouse, "select count(*) from connecteam.shifts where not is_deleted")[0]
    assert shifts == 90_000
