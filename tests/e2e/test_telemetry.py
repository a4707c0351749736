"""No usage data leaves the machine by default: dbt's anonymous usage statistics are off in the
project (``flags: send_anonymous_usage_stats: false``), Prefect's server analytics and client
analytics and dlt's telemetry are off in every ``wfm-sync`` process and the processes it starts,
whatever directory it runs from."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from prefect._internal.analytics.ci_detection import CI_ENV_VARS

from pipelines.dbt_runner import project_dir

OPT_OUTS = ("DO_NOT_TRACK", "DBT_SEND_ANONYMOUS_USAGE_STATS", "PREFECT_SERVER_ANALYTICS_ENABLED")


def clean_env() -> dict[str, str]:
    """This environment without any telemetry opt-out of the user's or the tests' own, and
    without the CI markers Prefect also reads, so only the project's defaults can turn it off."""
    return {k: v for k, v in os.environ.items() if k not in OPT_OUTS and k not in CI_ENV_VARS}


def run_python(code: str, env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


DBT_PROBE = """
import sys
from dbt.cli.main import dbtRunner
import dbt.tracking
from dbt.flags import get_flags

folder = sys.argv[1]
result = dbtRunner().invoke(["--quiet", "debug", "--config-dir", "--project-dir", folder,
                             "--profiles-dir", folder])
assert result.success, result.exception
user = dbt.tracking.active_user
print(get_flags().SEND_ANONYMOUS_USAGE_STATS, user.do_not_track, user.id)
"""


def test_dbt_resolves_the_project_flag_and_tracks_nothing(tmp_path: Path) -> None:
    """dbt reads the project's ``dbt_project.yml`` (the one ``wfm-sync`` runs, the package's) and
    profile; with no opt-out in the environment its resolved flag is off, its tracker has no
    user, and no ``.user.yml`` (dbt's tracking id) is written beside the profile."""
    for name in ("dbt_project.yml", "profiles.yml"):
        shutil.copy(project_dir() / name, tmp_path / name)
    code = DBT_PROBE.replace("sys.argv[1]", repr(str(tmp_path)))
    flag, do_not_track, user_id = run_python(code, clean_env()).split()[-3:]
    assert (flag, do_not_track, user_id) == ("False", "True", "None")
    assert not (tmp_path / ".user.yml").exists()


PREFECT_PROBE = """
import json, subprocess, sys

CHILD = (
    "import json; from prefect.analytics import is_telemetry_enabled; "
    "from prefect.settings import get_current_settings; "
    "print(json.dumps([get_current_settings().server.analytics_enabled, is_telemetry_enabled()]))"
)
if sys.argv[1] == "cli":
    from flows.cli import main

    sys.argv = ["wfm-sync", "--version"]
    try:
        main()
    except SystemExit as done:
        assert not done.code, done.code

from prefect.analytics import is_telemetry_enabled
from prefect.settings import get_current_settings

here = [get_current_settings().server.analytics_enabled, is_telemetry_enabled()]
child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
print(json.dumps({"process": here, "child": json.loads(child.stdout)}))
"""


def test_prefect_analytics_are_off_in_the_command_and_the_processes_it_starts() -> None:
    """``wfm-sync`` (its console-script entry point) sets the opt-outs before Prefect is
    imported; a process it starts (a served flow run) inherits them. Without the entry point,
    the same clean environment has both on: the defaults are what turns them off."""

    def probe(how: str) -> dict[str, list[bool]]:
        out = run_python(f"import sys; sys.argv = ['probe', {how!r}]\n{PREFECT_PROBE}", clean_env())
        return json.loads(out.strip().splitlines()[-1])

    assert probe("cli") == {"process": [False, False], "child": [False, False]}
    assert probe("bare") == {"process": [True, True], "child": [True, True]}


def test_flow_runs_of_the_work_pool_deployments_have_prefect_analytics_off() -> None:
    """``prefect worker start`` is not the ``wfm-sync`` command: the work-pool deployments carry
    the opt-outs as job variable ``env``, which a process worker sets on each flow run's process;
    a process with that environment (and none of the command's defaults) has both off."""
    from flows.deployments import Schedules, deployed_flow, work_pool_definitions

    envs = []
    for job, options in work_pool_definitions(Schedules()):
        deployment = deployed_flow(job).to_deployment(**options)  # as Prefect builds it
        envs.append(deployment.job_variables["env"])
    assert len(envs) == 2 and envs[0] == envs[1]

    out = run_python(
        f"import sys; sys.argv = ['probe', 'bare']\n{PREFECT_PROBE}", {**clean_env(), **envs[0]}
    )
    assert json.loads(out.strip().splitlines()[-1]) == {
        "process": [False, False],
        "child": [False, False],
    }


GUARD = Path(__file__).parents[1] / "outside_guard"
"""A folder whose ``sitecustomize`` logs and refuses connections outside loopback."""


def test_a_sync_from_an_empty_directory_opens_no_connection_outside_loopback(
    start_emulator, tmp_path: Path
) -> None:
    """What cron and a pip-installed user run: ``wfm-sync sync`` from an empty directory (no
    ``.dlt/config.toml`` of the project read), no opt-out in the environment. Every process of
    the run has a socket guard that logs and refuses any connection or name lookup outside
    127.0.0.1: dlt's, dbt's and Prefect's telemetry make none, and the sync succeeds."""
    from conftest import WFM_SYNC, cli_env

    server = start_emulator(users=4, forms=1, schedulers=1, shifts=2)
    outside = tmp_path / "outside.log"
    here = tmp_path / "empty"
    here.mkdir()
    env = {
        k: v for k, v in cli_env(server, tmp_path / "wh.duckdb").items()
        if k not in OPT_OUTS and k not in CI_ENV_VARS and not k.startswith("RUNTIME__")
    }  # fmt: skip
    env.update(PYTHONPATH=str(GUARD), WFM_TEST_OUTSIDE_LOG=str(outside))
    probe = "import urllib.request as u\ntry: u.urlopen('http://example.com', timeout=5)\n"
    probe += "except OSError: pass"
    subprocess.run([sys.executable, "-c", probe], env=env, check=True, timeout=60)
    assert "example.com" in outside.read_text()  # the guard sees what leaves the machine
    outside.unlink()
    done = subprocess.run([*WFM_SYNC, "sync", "--steps", "sync,models"], env=env, cwd=here,
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert not outside.exists(), outside.read_text()
