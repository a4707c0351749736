"""A non-editable install works: the wheel carries the dbt project and the provider's spec as
package data, so ``wfm-sync`` runs from a fresh virtual environment outside the repository."""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import API_KEY, query

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_wheel_installed_outside_the_repository_syncs_and_builds(start_emulator, tmp_path):
    # from a copy of the sources (links kept as links), so the build writes nothing here
    source = tmp_path / "source"
    generated = shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "target", "dbt_packages", "logs", "__pycache__",
        ".*_cache",
    )  # fmt: skip

    def ignored(folder: str, names: list[str]) -> set[str]:
        top = {"data"} if Path(folder) == REPO else set()  # the demo's data/ at the top only
        return set(generated(folder, names)) | (top & set(names))

    shutil.copytree(REPO, source, symlinks=True, ignore=ignored)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("wfm_sync-*.whl")
    carried = zipfile.ZipFile(wheel).namelist()
    assert "sources/connecteam/spec/connecteam-openapi.json" in carried  # the provider's spec, once
    assert not [name for name in carried if name.startswith(("tests/", "emulator/spec/"))]
    domains = {str(p.relative_to(REPO)) for p in (REPO / "emulator" / "domains").glob("*/*.py")}
    assert domains and domains <= set(carried)  # the emulator's domain packages, every module

    # a fresh environment; its dependencies are this one's (a path line, so this environment's
    # own editable wfm-sync is not picked up), wfm-sync itself only from the wheel
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    paths = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    asked = subprocess.run([str(python), "-c", paths], capture_output=True, text=True)
    purelib = asked.stdout.strip()
    Path(purelib, "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
         str(wheel)], capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr[-3000:]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    server = start_emulator(users=12, forms=2, schedulers=1, shifts=40)
    env = {
        "PATH": f"{env_dir / 'bin'}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "SOURCES__CONNECTEAM__BASE_URL": server.url,
        "SOURCES__CONNECTEAM__API_KEY": API_KEY,
        "WFM_SYNC_DBT_TARGET_DIR": str(tmp_path / "dbt"),
    }
    script = str(env_dir / "bin" / "wfm-sync")

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([script, *args], env=env, cwd=elsewhere, capture_output=True,
                              text=True, timeout=900)  # fmt: skip

    where = subprocess.run([str(python), "-c", "import pipelines; print(pipelines.__file__)"],
                           env=env, cwd=elsewhere, capture_output=True, text=True)  # fmt: skip
    assert where.stdout.startswith(purelib), where.stdout  # the wheel's copy, not the repo
    licence = subprocess.run(
        [str(python), "-c", "from importlib.metadata import metadata as m; "
         "print(m('wfm-sync')['License-Expression'])"],
        env=env, cwd=elsewhere, capture_output=True, text=True,
    )  # fmt: skip
    assert licence.stdout.strip() == "Apache-2.0"  # and LICENSE ships with it
    assert (REPO / "LICENSE").read_text().split()[:2] == ["Apache", "License"]
    version = run("--version")
    assert version.stdout.strip() == f"wfm-sync {wheel.name.split('-')[1]}", version.stderr
    assert run("demo", "--help").returncode == 0
    done = run("sync", "--streams", "users,forms,schedulers,shifts", "--steps", "sync,models")
    assert done.returncode == 0, done.stderr[-3000:]
    warehouse = elsewhere / "data" / "warehouse.duckdb"
    assert query(warehouse, "select count(*) from marts.dim_users where not is_inferred") == [(12,)]
    spec = run("emulator", "--data", "spec", "--help")
    assert spec.returncode == 0
