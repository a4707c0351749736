#!/usr/bin/env python3
"""Bootstrap and run wfm-sync's two everyday commands with nothing but Python 3.11+.

    python3 dev.py demo      # create .venv if missing, install, run `wfm-sync demo`
    python3 dev.py test      # create .venv if missing, install, run linters, type checks and tests
    python3 dev.py test-fast # the same checks, then only the unit tier (tests/unit: no server)
    python3 dev.py coverage  # the whole suite with coverage of the product (no linters; slower)
    python3 dev.py install   # create .venv if missing, install
    python3 dev.py lock      # write requirements.lock again from pyproject.toml, then install

`make demo`, `make test`, `make test-fast`, `make coverage`, `make install` and `make lock` call
this script.
The install takes every package from requirements.lock, each pinned with its hashes (`pip install
--require-hashes`), then the project itself without dependencies and without build isolation
(its build backend, setuptools, comes from the lock too, so nothing is installed unchecked); it
is repeated only when pyproject.toml or requirements.lock changed since the last one, and ends
with `pip check` (a lock that misses a dependency of pyproject.toml fails there). `lock` runs
pip-compile (pip-tools, a dev dependency) keeping the pins it can; `python3 dev.py lock
--upgrade` (or `--upgrade-package NAME`) moves them to the newest versions allowed. `test` runs,
in order: ruff (lint and format), mypy, sqlfluff, lint-imports (the import contracts in
pyproject.toml), pytest; `test-fast` runs the same linters, then pytest on `tests/unit` only
(no server, no subprocess: a couple of minutes, for the edit-test loop). `coverage` runs pytest
only, with pytest-cov measuring the product's packages in the tests' processes and in the
subprocesses they start (`[tool.coverage]` in pyproject.toml), and prints the report.

`WFM_SYNC_VENV` moves the virtual environment (default `.venv`). This script runs before the
project is installed, so it reads that one variable itself instead of through
`core/settings.py`.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import threading
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("WFM_SYNC_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".wfm-sync-installed"
LOCK = "requirements.lock"
COMPILE = [
    "pip-compile",
    "--quiet",
    "--generate-hashes",  # every distribution file of each pinned version
    "--extra=dev",
    "--extra=emulator",  # the emulator's generators (its spec data mode): `make install` has them
    "--all-build-deps",  # setuptools, the build backend: installed from the lock as well
    # each package with the extras asked of it (mashumaro[msgpack]): pip's hash mode wants
    # every requirement with extras pinned as such
    "--no-strip-extras",
    "--unsafe-package=pip",  # the virtual environment's own pip is left as it is
    "--no-emit-index-url",  # indexes and find-links come from the machine's pip configuration
    "--no-emit-find-links",
    f"--output-file={LOCK}",
    "pyproject.toml",
]
"""pip-compile's arguments for :data:`LOCK` (``python3 dev.py lock``)."""
CHECKS = [
    ["ruff", "check", "."],
    ["ruff", "format", "--check", "."],
    ["mypy"],
    ["sqlfluff", "lint", "sql"],
    ["lint-imports"],
    ["pytest", "-n", "2"],  # two workers (pytest-xdist): most tests wait on one core each
]
FAST_CHECKS = [*CHECKS[:-1], ["pytest", "-n", "2", "tests/unit"]]
"""``test-fast``: the linters and type checks, then the unit tier only."""
COVERAGE_CHECKS = [["pytest", "-n", "2", "--cov", "--cov-report=term"]]
"""``coverage``: the whole suite with coverage of the product's packages, no linters."""
TARGETS = {"test": CHECKS, "test-fast": FAST_CHECKS, "coverage": COVERAGE_CHECKS}


def run(*command: str) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)


def ensure_environment(check: bool = True) -> None:
    """Create the virtual environment and install the locked packages and the project if needed.

    ``check=False`` skips ``pip check`` (``lock`` installs the old lock before writing the new).
    """
    if sys.version_info < (3, 11):  # noqa: UP036 - runs under whatever python3 the user has
        sys.exit(f"wfm-sync needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    if not (BIN / "python").exists():
        print(f"creating virtual environment {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    digest = hashlib.sha256()
    for name in ("pyproject.toml", LOCK):
        digest.update((ROOT / name).read_bytes())
    wanted = digest.hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    pip = (str(BIN / "python"), "-m", "pip")
    install_locked(pip, ROOT / LOCK)
    run(*pip, "install", "--quiet", "--no-deps", "--no-build-isolation", "-e", ".")
    if check:
        try:
            run(*pip, "check")
        except subprocess.CalledProcessError:
            sys.exit(f"{LOCK} does not match pyproject.toml: run `python3 dev.py lock`")
    STAMP.write_text(wanted)


REQUIREMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[^]]*\])?==", re.MULTILINE)
"""A pinned requirement's first line in a lock (``name[extras]==version \\``)."""
FETCHED = re.compile(
    r"^(?:Collecting|Processing) (?:\S*/)?(?P<name>[A-Za-z0-9._-]+?)(?:\[[^]]*\])?(?:==|-\d)"
)
"""pip's line for each requirement it takes: ``Collecting name==1.0 (from -r …)`` from an
index, ``Processing /path/name-1.0-….whl (from -r …)`` from a local file."""


def install_locked(pip: tuple[str, ...], lock_file: Path) -> None:
    """``pip install --require-hashes -r lock_file``, showing progress instead of pip's output.

    Prints how many of the lock's packages pip has fetched (``fetched   [ 57/200] dbt-core``),
    then how many it has installed (counted as pip writes each ``*.dist-info`` folder): every
    package on a terminal, one in ten elsewhere (a CI log). pip's own output is printed whole
    only if it fails; raises ``subprocess.CalledProcessError`` then.
    """
    total = len(REQUIREMENT.findall(lock_file.read_text()))
    command = [*pip, "install", "--require-hashes", "--progress-bar", "off", "-r", str(lock_file)]
    print("+", " ".join(command), flush=True)
    print(f"installing {total} packages from {lock_file.name} into {VENV}", flush=True)
    fetched = Progress("fetched", total)
    site = site_packages(pip)
    before = {path.name for path in site.glob("*.dist-info")}
    installing = threading.Event()
    output: list[str] = []
    with subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if match := FETCHED.match(line):
                fetched.step(match["name"])
            elif line.startswith("Installing collected packages:") and not installing.is_set():
                installing.set()
                names = line.split(":", 1)[1].split(",")
                watcher = threading.Thread(
                    target=watch_installs,
                    args=(site, before, Progress("installed", len(names)), installing),
                    daemon=True,
                )
                watcher.start()
    if installing.is_set():
        installing.clear()  # the watcher's last look, then it stops
        watcher.join()
    if process.returncode:
        sys.stdout.write("".join(output))
        raise subprocess.CalledProcessError(process.returncode, command)
    print(f"installed the {total} packages of {lock_file.name}", flush=True)


def site_packages(pip: tuple[str, ...]) -> Path:
    """The virtual environment's ``site-packages`` folder (``pip[0]`` is its Python)."""
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    answer = subprocess.run([pip[0], "-c", code], check=True, capture_output=True, text=True)
    return Path(answer.stdout.strip())


class Progress:
    """The lines of one phase of an install: ``  fetched   [ 57/200] dbt-core``."""

    def __init__(self, verb: str, total: int) -> None:
        self.verb, self.total, self.done = verb, total, 0
        self.every = 1 if sys.stdout.isatty() else max(1, total // 10)

    def step(self, name: str) -> None:
        """One more package: its line when it is due (every ``self.every``, and the last)."""
        self.done += 1
        if self.done % self.every == 0 or self.done == self.total:
            width = len(str(self.total))
            print(f"  {self.verb:<9} [{self.done:>{width}}/{self.total}] {name}", flush=True)


def watch_installs(
    site: Path, before: set[str], progress: Progress, installing: threading.Event
) -> None:
    """Until ``installing`` is cleared, report each ``*.dist-info`` folder in ``site`` that is
    not in ``before``."""
    seen = set(before)
    while True:
        running = installing.is_set()
        for path in sorted(site.glob("*.dist-info")):
            if path.name not in seen:
                seen.add(path.name)
                progress.step(path.name.split("-")[0])
        if not running:
            return
        time.sleep(0.2)


def lock(options: list[str]) -> None:
    """Write :data:`LOCK` again with pip-compile (``options`` added, e.g. ``--upgrade``), then
    install it."""
    ensure_environment(check=False)
    environment = dict(os.environ, CUSTOM_COMPILE_COMMAND="python3 dev.py lock")
    command = [str(BIN / COMPILE[0]), *COMPILE[1:], *options]
    print("+", " ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True, env=environment)
    ensure_environment()


def main(argv: list[str]) -> int:
    target = argv[1] if len(argv) > 1 else "help"
    if target not in {"demo", "install", "lock", *TARGETS}:
        print(__doc__)
        return 2
    try:
        if target == "lock":
            lock(argv[2:])
            return 0
        ensure_environment()
        if target == "demo":
            run(str(BIN / "wfm-sync"), "demo", *argv[2:])
        elif target in TARGETS:
            for check in TARGETS[target]:
                run(str(BIN / check[0]), *check[1:], *(argv[2:] if check[0] == "pytest" else []))
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
