"""The command line imports only what the command runs: ``--help`` and every command's help
load no data library, web framework, Prefect, dbt or the emulator's server, and ``status``
loads no Prefect, dbt, pandas or emulator server (its reads need DuckDB and dlt's state)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("prefect", "dbt", "pandas", "dlt", "duckdb", "pyarrow", "sqlalchemy", "httpx",
         "fastapi", "uvicorn", "marimo", "altair", "emulator.app", "emulator.data")  # fmt: skip
PROBE = """
import atexit, json, sys
atexit.register(lambda: print("MODULES " + json.dumps(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["wfm-sync", *sys.argv[1:]]
from flows.cli import main
main()
"""


def imported(args: list[str], cwd: Path) -> set[str]:
    """The top-level and dotted module names loaded by ``wfm-sync <args>`` run in ``cwd``."""
    env = dict(os.environ, PREFECT_HOME=str(cwd / "prefect"), DLT_DATA_DIR=str(cwd / "dlt"))
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES "))
    return set(json.loads(line.removeprefix("MODULES ")))


@pytest.mark.parametrize(
    "args",
    [["--help"], ["sync", "--help"], ["status", "--help"], ["webhooks", "serve", "--help"],
     ["demo", "--help"], ["emulator", "--help"], ["models", "--help"], ["--version"]],
)  # fmt: skip
def test_help_loads_nothing_heavy(tmp_path: Path, args: list[str]) -> None:
    loaded = imported(args, tmp_path)
    assert "flows.cli" in loaded  # the probe ran the command
    assert sorted(name for name in HEAVY if name in loaded) == []


def test_status_loads_no_prefect_dbt_pandas_or_emulator_server(tmp_path: Path) -> None:
    loaded = imported(["status"], tmp_path)
    assert "pipelines.status" in loaded
    unwanted = ("prefect", "dbt", "pandas", "emulator.app", "fastapi", "marimo")
    assert sorted(name for name in unwanted if name in loaded) == []


def test_status_of_a_warehouse_reads_freshness_without_starting_dbt(tmp_path: Path) -> None:
    import duckdb

    (tmp_path / "data").mkdir()
    with duckdb.connect(str(tmp_path / "data" / "warehouse.duckdb")) as con:
        con.execute(
            "create schema connecteam; create table connecteam.users (user_id bigint, "
            "modified_at bigint); insert into connecteam.users values (1, 1795176000)"
        )
    loaded = imported(["status"], tmp_path)
    assert "pipelines.source_freshness" in loaded  # the warehouse was read
    assert sorted(name for name in ("dbt", "prefect", "emulator.app") if name in loaded) == []
