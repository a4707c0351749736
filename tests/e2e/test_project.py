"""One resolved configuration, passed down (``core.project``): two warehouses and two accounts in
one process without touching the environment; secrets that never show; and, read from the
tree, no module of ours reading or steering the environment behind the jobs' backs."""

from __future__ import annotations

import ast
import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import WFM_SYNC, account_project, cli_env, query

from core.project import Project
from sources.configuration import resolve

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("core", "sources", "pipelines", "flows", "receiver", "dashboard")

READS_SETTINGS = {"sources/configuration.py", "core/clock.py", "flows/cli/terminal.py"}
"""Where ``settings.current()`` may be called: the resolution itself, the clock (``WFM_SYNC_NOW``
for the edges without a project: the dashboard opened by itself) and the command line's option
defaults."""

RESOLVES = {
    "resolve": "sources.configuration",
    "source_config": "sources.configuration",
    "inbox_url_from_config": "sources.webhooks.config",
    "configured_inbox_url": "sources.webhooks.config",
    "webhooks_configuration": "sources.webhooks.config",
    "resolve_configuration": "dlt",
    "now": "core.clock",
}
"""Calls that resolve configuration or ask the clock, by name and where they come from."""

MAY_RESOLVE = {
    "sources/configuration.py": "the resolution itself",
    "sources/webhooks/config.py": "declares the inbox's and the receiver's configuration",
    "dashboard/notebook.py": "the notebook opened by itself is its own edge",
    "pipelines/entry_send.py": "the journal stamps when each write was sent (events, not as-of)",
    "pipelines/entry_resolve.py": "the journal stamps when an operator settled an entry",
    "pipelines/warehouse.py": "the PostgreSQL warehouse's credentials stay dlt's destination "
    "configuration, which dlt's own load reads too",
}
"""Below the edge (``flows``), the only modules that resolve configuration or ask the clock, and
why; every job, resource and the dashboard's report take the resolved project instead."""

SETS_ENVIRONMENT = {
    "flows/cli/__init__.py": "dlt's DLT_PROJECT_DIR from --project-dir, Prefect's quiet defaults",
    "core/settings.py": "settings.environment(): the block-scoped hand-off used by the dbt run",
}
"""The only modules that write ``os.environ``, and why (hand-offs to dlt, Prefect and dbt)."""


def project_of(tmp_path: Path, name: str, server_url: str, key: str) -> Project:
    """A project of its own folder ``name`` under ``tmp_path`` and the account at
    ``server_url``: nothing of it in the environment."""
    return account_project(tmp_path / name / "warehouse.duckdb", server_url, key)


def test_two_projects_sync_in_one_process_each_into_its_own_warehouse(
    tmp_path: Path, start_emulator
) -> None:
    from pipelines import run_sync
    from pipelines.runs import read_runs

    small = start_emulator(users=7, api_key="key-small")
    large = start_emulator(users=23, api_key="key-large")
    assert not any(k.startswith(("SOURCES__CONNECTEAM__API", "DESTINATION__")) for k in os.environ)
    a = project_of(tmp_path, "a", small.url, "key-small")
    b = project_of(tmp_path, "b", large.url, "key-large")

    assert run_sync(("users",), project=a).rows["users"] == 7
    assert run_sync(("users",), project=b).rows["users"] == 23
    assert query(a.warehouse, "select count(*) from connecteam.users") == [(7,)]
    assert query(b.warehouse, "select count(*) from connecteam.users") == [(23,)]
    assert [r.job for r in read_runs(a.paths.run_log)] == ["sync"]
    assert [r.job for r in read_runs(b.paths.run_log)] == ["sync"]
    assert (a.paths.pipelines_dir / "connecteam").is_dir()
    assert not (tmp_path / "data").exists()  # nothing went to the default warehouse


def test_a_wrong_key_handed_in_is_refused_not_replaced_by_the_configuration(
    tmp_path: Path, start_emulator, monkeypatch
) -> None:
    from pipelines import run_sync
    from sources.connecteam import find_connecteam_error

    server = start_emulator(users=3)
    monkeypatch.setenv("SOURCES__CONNECTEAM__API_KEY", "test-key-5f1c9e")  # the right one
    wrong = project_of(tmp_path, "w", server.url, "not-the-key")
    with pytest.raises(Exception) as refused:
        run_sync(("users",), project=wrong)
    cause = find_connecteam_error(refused.value)
    assert cause is not None and cause.status == 401
    assert "not-the-key" not in str(refused.value)


def test_the_warehouse_option_moves_every_file_of_a_command_with_it(
    tmp_path: Path, start_emulator
) -> None:
    server = start_emulator(users=4)
    env = cli_env(server, tmp_path / "configured" / "warehouse.duckdb")
    chosen = tmp_path / "chosen" / "w.duckdb"
    synced = subprocess.run(
        [*WFM_SYNC, "--warehouse", str(chosen), "sync", "--streams", "users", "--steps", "sync"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert synced.returncode == 0, synced.stderr[-2000:]
    assert query(chosen, "select count(*) from connecteam.users") == [(4,)]
    assert (chosen.parent / "runs.jsonl").exists() and (chosen.parent / "pipelines").is_dir()
    assert not (tmp_path / "configured").exists()  # DESTINATION__DUCKDB__CREDENTIALS lost
    status = subprocess.run(
        [*WFM_SYNC, "--warehouse", str(chosen), "status", "--json"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    shown = json.loads(status.stdout)
    assert shown["warehouse"] == f"duckdb:{chosen}"
    assert shown["run_log"] == str(chosen.parent / "runs.jsonl")


def test_the_account_key_never_shows_in_a_dump_or_repr(tmp_path: Path) -> None:
    project = account_project(
        tmp_path / "warehouse.duckdb", "http://127.0.0.1:9", "s3cr3t-key", "postgresql://u:pw@h/db"
    )
    for shown in (project.model_dump_json(), repr(project), str(project.model_dump(mode="json"))):
        assert "s3cr3t-key" not in shown and "pw@" not in shown
    assert project.source.arguments()["api_key"] == "s3cr3t-key"
    assert project.webhooks.url == "postgresql://u:pw@h/db"


def test_resolve_takes_options_over_the_environment_and_moves_paths_with_the_warehouse(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("WFM_SYNC_CURRENCY", "eur")
    monkeypatch.setenv("WFM_SYNC_SNAPSHOT", str(tmp_path / "bi" / "snap.duckdb"))
    project = resolve(tmp_path / "w" / "warehouse.duckdb", currency="chf")
    assert project.settings.currency == "CHF"  # the option wins over WFM_SYNC_CURRENCY
    assert project.paths.snapshot == tmp_path / "bi" / "snap.duckdb"  # the setting still counts
    assert project.paths.report == tmp_path / "w" / "report.html"
    moved = project.at(tmp_path / "v" / "warehouse.duckdb")
    assert moved.paths.run_log == tmp_path / "v" / "runs.jsonl"
    assert moved.paths.snapshot == tmp_path / "bi" / "snap.duckdb"
    assert moved.with_settings(snapshot=None).paths.snapshot == tmp_path / "v" / "analytics.duckdb"


def _product_modules() -> list[tuple[str, ast.Module]]:
    found = []
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            found.append((relative, ast.parse(path.read_text(), relative)))
    return found


def _calls_settings_current(tree: ast.Module) -> bool:
    """Whether ``tree`` calls ``settings.current()`` or a ``current`` imported from a
    ``settings`` module."""
    imported = any(
        isinstance(node, ast.ImportFrom)
        and (node.module or "").endswith("settings")
        and any(alias.name == "current" for alias in node.names)
        for node in ast.walk(tree)
    )
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        owner = function.value if isinstance(function, ast.Attribute) else None
        if (
            isinstance(function, ast.Attribute)
            and function.attr == "current"
            and isinstance(owner, ast.Name)
            and owner.id == "settings"
        ):
            return True
        if isinstance(function, ast.Name) and function.id == "current" and imported:
            return True
    return False


def _writes_environ(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            target = next((t for t in targets if isinstance(t, ast.Subscript)), None)
            target = target.value if target is not None else None
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("update", "setdefault", "pop", "__setitem__")
        ):
            target = node.func.value
        if isinstance(target, ast.Attribute) and target.attr == "environ":
            return True
    return False


def test_only_the_edges_read_the_settings_and_only_the_hand_offs_write_the_environment() -> None:
    modules = _product_modules()
    assert len(modules) > 100  # the tree was read
    readers = {name for name, tree in modules if _calls_settings_current(tree)}
    writers = {name for name, tree in modules if _writes_environ(tree)}
    assert readers <= READS_SETTINGS, sorted(readers - READS_SETTINGS)
    assert writers == set(SETS_ENVIRONMENT), sorted(writers ^ set(SETS_ENVIRONMENT))


def test_the_tree_check_finds_a_deep_read_and_a_write() -> None:
    deep = ast.parse("from core import settings\ndef f():\n    return settings.current().now\n")
    steer = ast.parse("import os\nos.environ['WFM_SYNC_NOW'] = '1'\n")
    assert _calls_settings_current(deep) and _writes_environ(steer)
    assert not _calls_settings_current(ast.parse("x = clock.current_time()\ny = current(c)"))
    assert _calls_settings_current(ast.parse("from .settings import current\nx = current()"))


def _resolving_calls(tree: ast.Module) -> set[str]:
    """Names of :data:`RESOLVES` that ``tree`` imports from where they come from and calls
    (``name()`` or ``module.name()``)."""
    imported = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if RESOLVES.get(alias.name, "-") in (node.module or "")
        or (node.module or "").endswith(RESOLVES.get(alias.name, "-").rsplit(".", 1)[-1])
    }
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Name) and function.id in imported:
            found.add(function.id)
        elif (
            isinstance(function, ast.Attribute)
            and function.attr in RESOLVES
            and isinstance(function.value, ast.Name)
            and function.value.id == RESOLVES[function.attr].rsplit(".", 1)[-1]
        ):
            found.add(function.attr)
    return found


def _optional_projects(tree: ast.Module) -> list[str]:
    """Functions of ``tree`` whose parameter ``project`` (a :class:`Project`, not a dbt
    project's folder) has a default."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef):
            continue
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = list(zip(positional[::-1], arguments.defaults[::-1], strict=False))
        defaults += [
            (a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d
        ]
        if any(
            a.arg == "project" and (a.annotation is None or "Project" in ast.unparse(a.annotation))
            for a, _ in defaults
        ):
            found.append(node.name)
    return found


def test_every_job_takes_the_project_and_only_the_edges_resolve_configuration() -> None:
    """Configuration is resolved once, at the edge (``flows``: the command line, the
    deployments' flows, the demo): below it every function taking a ``project`` requires one,
    and nothing resolves dlt's configuration, the inbox URL or the clock again."""
    modules = [(n, t) for n, t in _product_modules() if not n.startswith("flows/")]
    optional = {f"{n}:{f}" for n, t in modules for f in _optional_projects(t)}
    resolving = {n: _resolving_calls(t) for n, t in modules}
    assert optional == set()
    assert {n for n, calls in resolving.items() if calls} == set(MAY_RESOLVE), {
        n: sorted(c) for n, c in resolving.items() if c and n not in MAY_RESOLVE
    }


def test_the_configuration_checks_find_a_default_project_and_a_deep_resolution() -> None:
    lenient = ast.parse("def job(x, project: Project | None = None): ...\n")
    keyword = ast.parse("def job(*, project=None, y): ...\n")
    required = ast.parse("def job(x=1, *, project: Project): ...\n")
    assert _optional_projects(lenient) == ["job"] and _optional_projects(keyword) == ["job"]
    assert _optional_projects(required) == []
    deep = ast.parse("from core import clock\ndef f():\n    return clock.now()\n")
    dlt = ast.parse("from sources.webhooks.config import inbox_url_from_config as u\nu()\n")
    again = ast.parse("from sources.configuration import resolve\nresolve()\n")
    assert _resolving_calls(deep) == {"now"} and _resolving_calls(dlt) == {"u"}
    assert _resolving_calls(again) == {"resolve"}
    assert _resolving_calls(ast.parse("from pathlib import Path\nPath('.').resolve()\n")) == set()


def test_a_job_called_without_a_project_names_what_to_pass() -> None:
    from pipelines import run_sync

    with pytest.raises(TypeError, match=r"sync takes project=.*sources\.configuration\.resolve"):
        run_sync(("users",))  # type: ignore[call-arg]


def test_one_run_has_one_instant_and_the_inbox_url_is_resolved_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WFM_SYNC_NOW", "2026-12-20T00:00:00Z")
    monkeypatch.setenv("WEBHOOKS__INBOX_URL", "sqlite:///relative/inbox.sqlite3")
    monkeypatch.setenv("SOURCES__CONNECTEAM__API_KEY", "k-3f9a")
    monkeypatch.setenv("SOURCES__CONNECTEAM__SHIFTS_DAYS_BACK", "12")
    project = resolve(tmp_path / "warehouse.duckdb")
    assert project.now == 1_797_724_800.0
    assert project.webhooks.url.startswith("sqlite:////") and project.webhooks.url.endswith(
        "/relative/inbox.sqlite3"
    )  # absolute: from the project's home, never the current folder
    assert project.source.options["shifts_days_back"] == 12
    assert project.source.arguments()["api_key"] == "k-3f9a" and "k-3f9a" not in repr(project)
    monkeypatch.setenv("SOURCES__CONNECTEAM__TIMEOUT", "soon")
    with pytest.raises(Exception, match="SOURCES__CONNECTEAM__TIMEOUT"):
        resolve(tmp_path / "warehouse.duckdb")
