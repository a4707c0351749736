"""A full disk is one line: ``wfm-sync sync`` with its warehouse (and dlt's load packages beside
it) on a small tmpfs that fills, once while loading into DuckDB and once while extracting; each
run ends with exit 1 and one line naming the path and the space free, is never retried, and the
next run after space is freed loads every record exactly once.

Before (the issue): the step's retries tripped over the half-written load package and the run
ended ``FileNotFoundError: .../load/new/<id>/schema.json``; when DuckDB's write failed the final
message was about 40 lines and the log 2,285 lines without ``-v`` (measured here: 2,102 lines,
103 s, the last line a dlt warning)."""

from __future__ import annotations

import subprocess

import pytest
from conftest import TABLE_KEYS, WFM_SYNC, cli_env, query
from support.servers import fill, small_disk

pytestmark = pytest.mark.slow

STREAMS = "users,schedulers,shifts"


@pytest.mark.parametrize(
    ("left_mib", "named"),
    [(3.0, "warehouse.duckdb.wal"), (0.2, "data")],
    ids=["while-loading", "while-extracting"],
)
def test_a_full_disk_ends_the_run_in_one_line_and_the_next_run_loads_once(
    start_emulator, left_mib: float, named: str
):
    emulator = start_emulator(users=3000, forms=1, schedulers=2, shifts=6000)
    with small_disk(64) as disk:
        project = disk / "project"
        project.mkdir()
        warehouse = project / "data" / "warehouse.duckdb"
        env = cli_env(emulator, warehouse)

        def sync() -> subprocess.CompletedProcess[str]:
            return subprocess.run([*WFM_SYNC, "sync", "--streams", STREAMS, "--steps", "sync"],
                                  env=env, cwd=project, capture_output=True, text=True,
                                  timeout=600)  # fmt: skip

        filler = fill(disk, int(left_mib * 1024 * 1024))
        full = sync()
        last = full.stderr.strip().splitlines()[-1]
        assert full.returncode == 1, full.stderr[-3000:]
        assert last.startswith("sync failed: the disk is full: no space left on the disk of "), last
        assert f"{project / 'data'}" in last and last.split("(")[1].startswith(
            tuple("0123456789")
        ), last
        assert named in last and "MiB free there now" in last, last
        assert "Traceback" not in full.stderr and "retry 1 of" not in full.stderr
        assert len(full.stderr.splitlines()) < 100, len(full.stderr.splitlines())

        filler.unlink()
        again = sync()
        assert again.returncode == 0, again.stderr[-3000:]
        assert query(warehouse, "select count(*) from connecteam.users") == [(3000,)]
        for table in STREAMS.split(","):  # every record once
            key = TABLE_KEYS[table]
            sql = f"select count(*) = count(distinct ({key})) from connecteam.{table}"
            assert query(warehouse, sql) == [(True,)], table


def test_the_message_of_a_full_disk_names_the_deepest_path():
    """DuckDB's error, wrapped by dlt and quoted in an outer message with a traceback's paths,
    gives the file being written; an ``OSError`` without a file name gives none; the provider's
    answer quoting the words is no full disk of ours."""
    import duckdb
    from dlt.destinations.exceptions import DatabaseTransientException

    from core.errors import disk_full
    from sources.connecteam.errors import ConnecteamAPIError

    inner = duckdb.IOException('Could not write file "/d/w.duckdb.wal": No space left on device')
    outer = DatabaseTransientException(inner)
    outer.__cause__ = inner
    found = disk_full(outer)
    assert found is not None and found.path == "/d/w.duckdb.wal"
    plain = disk_full(OSError(28, "No space left on device"))
    assert plain is not None and plain.path is None
    assert disk_full(ValueError("No space left on device")) is None
    provider = ConnecteamAPIError("/documents/v1/user-documents", 413, "File too large")
    assert disk_full(provider) is None
    message = found.message()
    assert "/d/w.duckdb.wal" in message and "MiB free there now" in message
