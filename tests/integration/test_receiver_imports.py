"""The receiver stores a delivery through the inbox alone: importing its application loads no dlt,
DuckDB or Arrow (issue 45: they cost the HTTP server seconds at start and hundreds of MiB)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("dlt", "duckdb", "pyarrow", "numpy", "pandas", "sources")

PROBE = f"""
import json, sys
import receiver.app
from receiver import create_app, ReceiverConfig
print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))
"""


def test_importing_the_receiver_app_loads_no_dlt_duckdb_or_arrow() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_probe_sees_a_heavy_import() -> None:
    code = PROBE.replace("import receiver.app", "import receiver.app, duckdb")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["duckdb"]
