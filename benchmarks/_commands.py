"""Running ``wfm-sync`` commands from a benchmark: the console script beside this interpreter,
timed from outside."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

WFM_SYNC = str(Path(sys.executable).with_name("wfm-sync"))


def timed(env: dict[str, str], *args: str) -> float:
    """Seconds one ``wfm-sync`` command took; raises when it failed."""
    started = time.monotonic()
    done = subprocess.run([WFM_SYNC, *args], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(
            f"wfm-sync {' '.join(args)} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    return time.monotonic() - started
