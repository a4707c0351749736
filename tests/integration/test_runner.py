"""Steps and jobs without Prefect (:mod:`flows.runner`): a step retries as it declares, a
one-shot sync never imports Prefect, and the Prefect API is found wherever Prefect reads it."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flows.runner import job, step
from tests.conftest import cli_env
from tests.e2e.test_cli_imports import imported

ROOT = Path(__file__).resolve().parents[2]


class TransientError(RuntimeError):
    pass


def test_a_step_retries_as_declared_and_only_while_its_condition_holds() -> None:
    calls: list[str] = []

    @step(name="flaky", run_name="flaky", retries=2, retry_delay_seconds=(0.0,),
          retry_if=lambda exc: isinstance(exc, TransientError))  # fmt: skip
    def flaky(outcomes: list[BaseException | None]) -> int:
        calls.append("call")
        outcome = outcomes[len(calls) - 1]
        if outcome is not None:
            raise outcome
        return len(calls)

    assert flaky([TransientError(), TransientError(), None]) == 3  # two retries, then the answer
    calls.clear()
    with pytest.raises(TransientError):
        flaky([TransientError(), TransientError(), TransientError(), None])  # 1 + 2 calls
    assert len(calls) == 3
    calls.clear()
    with pytest.raises(ValueError):
        flaky([ValueError("refused"), None])  # the condition declines: never retried
    assert calls == ["call"]


def test_retry_delays_repeat_the_last_declared_one_and_match_the_prefect_task() -> None:
    @step(name="s", run_name="s", retries=4, retry_delay_seconds=(10, 60))
    def s() -> None: ...

    assert [s.delay(i) for i in range(4)] == [10.0, 60.0, 60.0, 60.0]
    assert s.prefect_task.retries == 4
    assert s.prefect_task.retry_delay_seconds == [10.0, 60.0, 60.0, 60.0]
    assert s.prefect_task.name == "s"


def test_a_job_without_an_api_calls_its_function(monkeypatch: pytest.MonkeyPatch, tmp_path):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)

    @job(name="j", run_name="j-{x}")
    def j(x: int) -> int:
        return x * 2

    assert j(21) == 42
    assert j.prefect_flow.name == "j" and j.prefect_flow.flow_run_name == "j-{x}"


PROBE = """
import json, sys
from flows.runner import prefect_api_url
print(json.dumps([prefect_api_url(), "prefect" in sys.modules]))
"""


def probe(cwd: Path, **env: str) -> list[object]:
    """``[prefect_api_url(), whether Prefect was imported]`` in a fresh process in ``cwd``."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=cwd, capture_output=True, text=True,
                          env={**base, "PYTHONPATH": str(ROOT), **env}, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    result: list[object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_prefect_api_is_found_wherever_prefect_reads_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    url = "http://127.0.0.1:9/api"
    # nowhere: no API, and Prefect is not imported to find that out
    assert probe(tmp_path, PREFECT_HOME=str(home)) == [None, False]
    # the environment: used as it is, without importing Prefect
    assert probe(tmp_path, PREFECT_HOME=str(home), PREFECT_API_URL=url) == [url, False]
    # a profile that sets nothing: still no API, still no Prefect
    (home / "profiles.toml").write_text('active = "local"\n[profiles.local]\n')
    assert probe(tmp_path, PREFECT_HOME=str(home)) == [None, False]
    # the active profile sets it: Prefect's own settings answer
    (home / "profiles.toml").write_text(
        f'active = "server"\n[profiles.server]\nPREFECT_API_URL = "{url}"\n'
    )
    assert probe(tmp_path, PREFECT_HOME=str(home)) == [url, True]
    # a prefect.toml in the working directory
    other = tmp_path / "other-home"
    other.mkdir()
    (tmp_path / "prefect.toml").write_text(f'[api]\nurl = "{url}"\n')
    assert probe(tmp_path, PREFECT_HOME=str(other)) == [url, True]


def test_a_one_shot_sync_imports_no_prefect_dbt_or_dashboard(
    start_emulator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = start_emulator(users=5)
    for name, value in cli_env(server, tmp_path / "w.duckdb").items():
        monkeypatch.setenv(name, value)  # imported() runs with this process's environment
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    loaded = imported(["sync", "--streams", "users", "--steps", "sync"], tmp_path)
    assert "pipelines.sync" in loaded and "dlt" in loaded  # the sync ran
    unwanted = ("prefect", "dbt", "marimo", "altair", "emulator.app", "fastapi")
    assert sorted(name for name in unwanted if name in loaded) == []


@pytest.mark.parametrize("where", ["root", "elsewhere"])
def test_deployment_entrypoints_load_the_jobs_prefect_flows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """What a served deployment's runner and a work pool's worker load: a Prefect ``Flow`` of
    the job's name, from the project's root (work pools) or the directory ``serve`` ran in."""
    from prefect import Flow
    from prefect.flows import load_flow_from_entrypoint

    from flows.deployments import entrypoint
    from flows.fold import fold_webhooks
    from flows.nightly import nightly_sync

    cwd = ROOT if where == "root" else tmp_path
    monkeypatch.chdir(cwd)
    for one in (nightly_sync, fold_webhooks):
        point = entrypoint(one, cwd)
        assert point.endswith(f"flows/prefect_flows.py:{one.fn.__name__}")
        loaded = load_flow_from_entrypoint(point)
        assert isinstance(loaded, Flow) and loaded.name == one.name
        # a scheduled run carries no project (secrets are no parameters): the flow resolves it
        assert "project" not in loaded.parameters.properties
        assert "project" in inspect.signature(one.fn).parameters
