#!/usr/bin/env python3
"""Bootstrap and run wfm-sync's two everyday commands with nothing but Python 3.11+.

    python3 dev.py demo   # create .venv if missing, install, run `wfm-sync demo`
    python3 dev.py test   # create .venv if missing, install, run linters, type checks and tests

`make demo` and `make test` call this script. The install is repeated only when
pyproject.toml or constraints.txt changed since the last one. `test` runs, in order: ruff
(lint and format), mypy, sqlfluff, lint-imports (the import contracts in pyproject.toml), pytest.

`WFM_SYNC_VENV` moves the virtual environment (default `.venv`). This script runs before the
project is installed, so it reads that one variable itself instead of through
`sources/settings.py`.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("WFM_SYNC_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".wfm-sync-installed"
CHECKS = [
    ["ruff", "check", "."],
    ["ruff", "format", "--check", "."],
    ["mypy"],
    ["sqlfluff", "lint", "sql"],
    ["lint-imports"],
    ["pytest", "-n", "2"],  # two workers (pytest-xdist): most tests wait on one core each
]


def run(*command: str) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)


def ensure_environment() -> None:
    """Create the virtual environment and install the project with its dev tools if needed."""
    if sys.version_info < (3, 11):  # noqa: UP036 - runs under whatever python3 the user has
        sys.exit(f"wfm-sync needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    if not (BIN / "python").exists():
        print(f"creating virtual environment {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    digest = hashlib.sha256()
    for name in ("pyproject.toml", "constraints.txt"):
        digest.update((ROOT / name).read_bytes())
    wanted = digest.hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    python = str(BIN / "python")
    run(python, "-m", "pip", "install", "--quiet", "-c", "constraints.txt", "-e", ".[dev]")
    STAMP.write_text(wanted)


def main(argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else "help"
    if target not in {"demo", "test", "install"}:
        print(__doc__)
        return 2
    ensure_environment()
    try:
        if target == "demo":
            run(str(BIN / "wfm-sync"), "demo", *argv[2:])
        elif target == "test":
            for check in CHECKS:
                run(str(BIN / check[0]), *check[1:], *(argv[2:] if check[0] == "pytest" else []))
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
