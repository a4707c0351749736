"""``wfm-sync`` run as a user runs it: the installed command in a subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("wfm-sync")
WFM_SYNC = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "flows.cli"]
"""The installed ``wfm-sync`` console script of this environment."""


def run_cli(
    *args: str, env: dict[str, str], cwd: Path | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``wfm-sync *args`` with the environment ``env`` (nothing of this process's) in ``cwd``;
    its output captured as text.

    Raises:
        subprocess.TimeoutExpired: It ran past ``timeout`` seconds.
    """
    return subprocess.run(
        [*WFM_SYNC, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
