"""A first real run as a new user makes it: mistakes are named in a line or two, before any work,
with exit codes that mean one thing (0 done, 1 the run failed, 2 usage or configuration)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import WFM_SYNC, cli_env


class Nowhere:
    """A base URL where nothing listens (the discard port on loopback)."""

    url = "http://127.0.0.1:9"


def run_cli(*args: str, env: dict[str, str], cwd: Path | None = None, timeout: float = 300):
    return subprocess.run(
        [*WFM_SYNC, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def test_version_and_short_help_everywhere(tmp_path: Path) -> None:
    env = cli_env(Nowhere(), tmp_path / "warehouse.duckdb")
    version = run_cli("--version", env=env)
    assert version.returncode == 0 and version.stdout.startswith("wfm-sync "), version.stderr
    assert version.stdout.split()[1][0].isdigit()
    for command in ([], ["sync"], ["webhooks", "fold"], ["models", "build"], ["emulator"]):
        shown = run_cli(*command, "-h", env=env)
        assert shown.returncode == 0, (command, shown.stderr)
        assert "Usage: wfm-sync" in shown.stdout, command


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [("--streams", "userz", "'userz'"), ("--steps", "sync,modles", "'modles'")],
)
def test_an_unknown_name_exits_2_naming_the_choices_before_any_work(
    tmp_path: Path, option: str, value: str, named: str
) -> None:
    warehouse = tmp_path / "data" / "warehouse.duckdb"
    done = run_cli("sync", option, value, env=cli_env(Nowhere(), warehouse))
    assert done.returncode == 2, done.stderr
    message = " ".join(done.stderr.replace("│", " ").split())
    assert f"unknown {named}; choose from" in message and option in message
    assert "Traceback" not in done.stderr
    assert not warehouse.parent.exists()  # nothing was synced, built or published
