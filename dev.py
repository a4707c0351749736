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
The install takes every package from requirements.lock, each pinned with its hashes: first uv,
pinned and hash-checked in the lock too, with pip; then the lock with `uv pip install
--require-hashes` (seconds, where pip needs about two minutes), from the indexes and find-links
of the machine's pip configuration; with pip itself (`pip install --require-hashes`) if uv
cannot. Then the project itself without dependencies and without build isolation (its build
backend, setuptools, comes from the lock too, so nothing is installed unchecked); it is repeated
only when pyproject.toml or requirements.lock changed since the last one, and ends with `pip
check` (a lock that misses a dependency of pyproject.toml fails there). `lock` runs pip-compile
(pip-tools, a dev dependency) keeping the pins it can; `python3 dev.py lock --upgrade` (or
`--upgrade-package NAME`) moves them to the newest versions allowed. `test` runs the linters
side by side (ruff lint and format, mypy, sqlfluff, lint-imports: the import contracts in
pyproject.toml; each one's output whole, in that order), then pytest; `test-fast` runs the same
linters, then pytest on `tests/unit` only (no server, no subprocess: a couple of minutes, for
the edit-test loop). `coverage` runs pytest
only, with pytest-cov measuring the product's packages in the tests' processes and in the
subprocesses they start (`[tool.coverage]` in pyproject.toml), and prints the report.

`WFM_SYNC_VENV` moves the virtual environment (default `.venv`). This script runs before the
project is installed, so it reads that one variable itself instead of through
`core/settings.py`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import subprocess
import sys
import tempfile
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
LINTS = [
    ["ruff", "check", "."],
    ["ruff", "format", "--check", "."],
    ["mypy"],
    ["sqlfluff", "lint", "sql"],
    ["lint-imports"],
]
"""The linters and type checks: independent of each other, each on one core, so they run side
by side (:func:`run_together`)."""
TARGETS = {
    # two workers (pytest-xdist): most tests wait on one core each
    "test": (LINTS, ["pytest", "-n", "2"]),
    "test-fast": (LINTS, ["pytest", "-n", "2", "tests/unit"]),  # the unit tier only
    "coverage": ([], ["pytest", "-n", "2", "--cov", "--cov-report=term"]),  # no linters
}
"""Each target's checks run side by side first, then its pytest command (the target's extra
arguments go to pytest)."""


def run(*command: str) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)


def run_together(commands: list[list[str]]) -> None:
    """Start every command of the environment's ``bin`` at once and print each one's output
    whole, in the listed order, with its exit status and seconds; raise
    ``subprocess.CalledProcessError`` for the first that failed once all have ended (so every
    failure is shown in one run)."""
    failed = None
    with contextlib.ExitStack() as stack:
        started = []
        for command in commands:
            output = stack.enter_context(tempfile.TemporaryFile("w+"))
            process = subprocess.Popen(
                [str(BIN / command[0]), *command[1:]], cwd=ROOT, stdout=output,
                stderr=subprocess.STDOUT, text=True,
            )  # fmt: skip
            started.append((command, process, output, time.monotonic()))
        ended: dict[int, float] = {}
        shown = 0
        while shown < len(started):
            for index, (_, process, _, _) in enumerate(started):
                if index not in ended and process.poll() is not None:
                    ended[index] = time.monotonic()
            while shown in ended:  # the next in order has ended: its output now
                command, process, output, began = started[shown]
                status, seconds = process.returncode, ended[shown] - began
                print(f"+ {' '.join(command)}  (exit {status}, {seconds:.0f} s)", flush=True)
                output.seek(0)
                sys.stdout.write(output.read())
                if status and failed is None:
                    failed = subprocess.CalledProcessError(status, command)
                shown += 1
            time.sleep(0.1)
    if failed is not None:
        raise failed


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
    uv = install_uv(pip, ROOT / LOCK)
    if uv is None or not install_locked_with_uv(uv, pip, ROOT / LOCK):
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


UV = re.compile(r"^uv==[^\n\\]*(?:\\\n[^\n\\]*)*", re.MULTILINE)
"""uv's requirement in a lock: its pinned line and the ``--hash`` lines continued from it."""
UV_SUMMARY = ("Resolved", "Prepared", "Installed", "Audited", "Uninstalled")
"""The first words of uv's summary lines, shown as the install's progress."""


def install_uv(pip: tuple[str, ...], lock_file: Path) -> Path | None:
    """Install uv, pinned and hash-checked as ``lock_file`` pins it, with pip; return its
    executable, or ``None`` (with a line saying why) when the lock has no uv or pip fails."""
    found = UV.search(lock_file.read_text())
    if found is None:
        print(f"{lock_file.name} pins no uv: installing with pip", flush=True)
        return None
    requirement = VENV / "uv-requirement.txt"
    requirement.write_text(found.group(0) + "\n")
    command = [*pip, "install", "--quiet", "--require-hashes", "--no-deps", "-r", str(requirement)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        print(
            f"pip could not install uv ({done.stderr.strip()[-300:]}): installing with pip",
            flush=True,
        )
        return None
    return BIN / "uv"


def uv_index_options(pip: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    """The machine's pip configuration (``pip config list``: its files and ``PIP_*`` variables)
    as uv's options and environment, so both take packages from the same places: index-url,
    extra-index-url, find-links and no-index as options; cert as ``SSL_CERT_FILE`` and
    default-timeout (seconds) as ``UV_HTTP_TIMEOUT``. A variable wins over a file, as in pip.
    A constraint file is left out (uv's hash mode refuses its ranges): the lock pins every
    package exactly."""
    listing = subprocess.run([*pip, "config", "list"], capture_output=True, text=True).stdout
    settings: dict[str, str] = {}
    rank = {"global": 0, "user": 1, "site": 2, ":env:": 3}  # pip's: each overrides the last
    lines = [line.partition("=") for line in listing.splitlines() if "=" in line]
    for key, _, value in sorted(lines, key=lambda line: rank.get(line[0].split(".")[0], 0)):
        settings[key.split(".", 1)[-1]] = value.strip().strip("'\"")
    options: list[str] = []
    for key in ("index-url", "extra-index-url", "find-links"):
        for value in settings.get(key, "").split():
            options += [f"--{key}", value]
    if settings.get("no-index", "").lower() in {"1", "true", "yes", "on"}:
        options.append("--no-index")
    environment = {}
    if "cert" in settings:
        environment["SSL_CERT_FILE"] = settings["cert"]
    if "default-timeout" in settings:
        environment["UV_HTTP_TIMEOUT"] = settings["default-timeout"]
    return options, environment


def install_locked_with_uv(uv: Path, pip: tuple[str, ...], lock_file: Path) -> bool:
    """``uv pip install --require-hashes --no-deps -r lock_file`` into the environment of
    ``pip[0]``, from the places pip's configuration names (:func:`uv_index_options`), every index
    weighed alike as pip does (the hashes decide what is accepted), compiled to bytecode as pip
    does (where ``PYTHONDONTWRITEBYTECODE`` is set no process writes it later, and each one
    would compile dbt, dlt and Prefect again: seconds per process). Prints uv's summary lines
    as they come; returns ``False`` (after uv's last lines and a note) when uv fails, so the
    caller installs with pip instead."""
    options, environment = uv_index_options(pip)
    command = [
        str(uv), "pip", "install", "--python", pip[0], "--require-hashes", "--no-deps",
        "--compile-bytecode", "--index-strategy", "unsafe-best-match", *options,
        "-r", str(lock_file),
    ]  # fmt: skip
    total = len(REQUIREMENT.findall(lock_file.read_text()))
    print("+", " ".join(command), flush=True)
    print(f"installing {total} packages from {lock_file.name} into {VENV} with uv", flush=True)
    output: list[str] = []
    with subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, **environment},
    ) as process:  # fmt: skip
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if line.startswith(UV_SUMMARY):
                print(f"  {line.rstrip()}", flush=True)
    if process.returncode:
        sys.stdout.write("".join(output[-20:]))
        print(f"uv failed (exit {process.returncode}): installing with pip", flush=True)
        return False
    print(f"installed the {total} packages of {lock_file.name}", flush=True)
    return True


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
            lints, pytest = TARGETS[target]
            run_together(lints)
            run(str(BIN / pytest[0]), *pytest[1:], *argv[2:])
    except subprocess.CalledProcessError as exc:
        return exc.returncode or 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
