"""``requirements.lock`` pins every package the project needs (runtime, dev tools, build backend)
with its hashes, agrees with ``pyproject.toml``, and is what the environment was installed from
(``python3 dev.py install``: ``pip install --require-hashes -r requirements.lock``)."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tomllib
import venv
import zipfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

import dev

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements.lock"


def locked() -> dict[str, tuple[str, list[str], set[str]]]:
    """``{name: (version, hashes, extras)}`` of every requirement in the lock."""
    text = LOCK.read_text()
    entries: dict[str, tuple[str, list[str], set[str]]] = {}
    # one requirement: its line, then backslash-continued --hash lines
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        first = block.splitlines()[0].rstrip(" \\")
        if not first or first.startswith(("#", "-")):
            continue
        requirement = Requirement(first)
        pins = [s for s in requirement.specifier if s.operator == "=="]
        assert len(pins) == 1 and len(requirement.specifier) == 1, f"not pinned with ==: {first}"
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", block)
        name = canonicalize_name(requirement.name)
        entries[name] = (pins[0].version, hashes, set(requirement.extras))
    return entries


def test_every_locked_package_is_pinned_with_hashes() -> None:
    entries = locked()
    assert len(entries) > 150  # the whole tree, not the direct dependencies only
    for name, (_pinned, hashes, _extras) in entries.items():
        assert hashes, f"{name} has no --hash"
    assert "pip" not in entries  # the environment's own pip is left alone
    assert "--index-url" not in LOCK.read_text() and "/opt/" not in LOCK.read_text()
    assert not (ROOT / "constraints.txt").exists()  # the versions are declared once: here


def test_the_lock_satisfies_every_requirement_of_pyproject() -> None:
    """A dependency added to pyproject.toml without `python3 dev.py lock` fails here (and in
    `pip check` at install)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = [
        *project["project"]["dependencies"],
        *project["project"]["optional-dependencies"]["dev"],
        *project["project"]["optional-dependencies"]["emulator"],
        *project["build-system"]["requires"],
    ]
    entries = locked()
    environment = {k: str(v) for k, v in default_environment().items()}
    for text in wanted:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate(environment):
            continue
        name = canonicalize_name(requirement.name)
        assert name in entries, f"{text}: not in {LOCK.name}; run `python3 dev.py lock`"
        pinned, _hashes, extras = entries[name]
        assert requirement.specifier.contains(pinned, prereleases=True), (text, pinned)
        assert set(requirement.extras) <= extras, (text, extras)


def test_the_environment_holds_exactly_the_locked_versions() -> None:
    mismatched = {}
    for name, (pinned, _hashes, _extras) in locked().items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "missing"
        if installed == "missing" or Version(installed) != Version(pinned):
            mismatched[name] = (pinned, installed)
    assert not mismatched, f"installed differs from {LOCK.name}: {mismatched}"


def wheel(folder: Path, name: str) -> Path:
    """A minimal pure-Python wheel of ``name`` 1.0 in ``folder`` (module ``name``)."""
    path = folder / f"{name}-1.0-py3-none-any.whl"
    info = f"{name}-1.0.dist-info"
    files = {
        f"{name}/__init__.py": "VALUE = 1\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = "".join(f"{file},,\n" for file in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as archive:
        for file, text in {**files, f"{info}/RECORD": record}.items():
            archive.writestr(file, text)
    return path


def offline_wheels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, names: tuple[str, ...]
) -> tuple[Path, dict[str, str]]:
    """Wheels of ``names`` in ``tmp_path/wheels`` and pip's configuration pointed at them only
    (no config file, no index): ``(folder, {name: sha256})``."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    digests = {name: hashlib.sha256(wheel(wheels, name).read_bytes()).hexdigest() for name in names}
    for variable, value in {
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }.items():
        monkeypatch.setenv(variable, value)
    return wheels, digests


def test_the_install_shows_how_many_of_how_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dev.py install` prints pip's progress as counts of the lock's packages, and pip's own
    output only when it fails (a wrong hash here): real pip, a real virtual environment, two
    local wheels (no index: nothing leaves the machine)."""
    _, digests = offline_wheels(tmp_path, monkeypatch, ("wfmprobea", "wfmprobeb"))
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    pip = (str(environment / "bin" / "python"), "-m", "pip")
    lock = tmp_path / "requirements.lock"

    lock.write_text("".join(f"{n}==1.0 \\\n    --hash=sha256:{'0' * 64}\n" for n in digests))
    with pytest.raises(subprocess.CalledProcessError):
        dev.install_locked(pip, lock)
    assert "DO NOT MATCH THE HASHES" in capsys.readouterr().out

    lock.write_text("".join(f"{n}==1.0 \\\n    --hash=sha256:{d}\n" for n, d in digests.items()))
    dev.install_locked(pip, lock)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"installing 2 packages from requirements.lock into {dev.VENV}"
    progress = [line.split()[:3] for line in lines[2:-1]]
    # counts in order; which package comes first is pip's choice (and when it writes each
    # package's metadata), not ours
    assert [(word, count) for word, count, _ in progress] == [
        ("fetched", "[1/2]"), ("fetched", "[2/2]"), ("installed", "[1/2]"), ("installed", "[2/2]")
    ]  # fmt: skip
    assert {name for _, _, name in progress[:2]} == {"wfmprobea", "wfmprobeb"}
    assert {name for _, _, name in progress[2:]} == {"wfmprobea", "wfmprobeb"}
    assert lines[-1] == "installed the 2 packages of requirements.lock"
    assert "Successfully installed" not in "\n".join(lines)  # pip's own lines stay quiet


def test_uv_installs_the_lock_from_where_pips_configuration_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dev.py install` takes the lock with uv, from the find-links and indexes of pip's
    configuration (here its variables: no index, one folder of wheels), hash-checked: a wrong
    hash is refused (uv's message shown, ``False``: the caller installs with pip instead), the
    right ones install, compiled to bytecode. Real uv (the project's own), a real virtual
    environment, two local wheels: nothing leaves the machine."""
    wheels, digests = offline_wheels(tmp_path, monkeypatch, ("wfmprobec", "wfmprobed"))
    monkeypatch.setenv("PIP_DEFAULT_TIMEOUT", "7")
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    python = environment / "bin" / "python"
    pip = (str(python), "-m", "pip")
    uv = Path(dev.BIN / "uv")
    lock = tmp_path / "requirements.lock"

    monkeypatch.setenv("PIP_CERT", str(tmp_path / "bundle.pem"))
    options, variables = dev.uv_index_options(pip)
    assert options == ["--find-links", str(wheels), "--no-index"]
    assert variables == {"SSL_CERT_FILE": str(tmp_path / "bundle.pem"), "UV_HTTP_TIMEOUT": "7"}
    monkeypatch.delenv("PIP_CERT")

    lock.write_text("".join(f"{n}==1.0 \\\n    --hash=sha256:{'0' * 64}\n" for n in digests))
    assert dev.install_locked_with_uv(uv, pip, lock) is False
    shown = capsys.readouterr().out
    assert "hash" in shown.lower() and "installing with pip" in shown

    lock.write_text("".join(f"{n}==1.0 \\\n    --hash=sha256:{d}\n" for n, d in digests.items()))
    assert dev.install_locked_with_uv(uv, pip, lock) is True
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"installing 2 packages from requirements.lock into {dev.VENV} with uv"
    assert lines[-1] == "installed the 2 packages of requirements.lock"
    # compiled at install, before anything imports them: where PYTHONDONTWRITEBYTECODE is set
    # (as on CI) no process writes a .pyc, and every subprocess of the suite would compile dbt,
    # dlt and Prefect again
    site = dev.site_packages(pip)
    compiled = sorted(p.parent.parent.name for p in site.glob("wfmprobe*/__pycache__/*.pyc"))
    assert compiled == ["wfmprobec", "wfmprobed"]
    imported = subprocess.run(
        [str(python), "-c", "import wfmprobec as c, wfmprobed as d; print(c.VALUE + d.VALUE)"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert imported.stdout.strip() == "2"


def test_the_lock_pins_uv_with_its_hashes_for_the_install() -> None:
    """The uv that `dev.py install` takes with pip is the lock's, hashes and all."""
    found = dev.UV.search(LOCK.read_text())
    assert found is not None
    block = found.group(0)
    assert block.startswith(f"uv=={locked()['uv'][0]} \\")
    assert block.count("--hash=sha256:") == len(locked()["uv"][1]) > 0
