"""Running dbt on the project in ``sql/`` against the warehouse, DuckDB (default) or PostgreSQL
(``WFM_SYNC_DESTINATION=postgres``): :func:`run_dbt`, and where the project and its artifacts are.

dbt runs in-process through its Python runner (``dbtRunner``) with the project's own
``sql/profiles.yml``. On DuckDB, target ``warehouse`` (no extensions to download) opens the
warehouse file named by the dbt variable ``warehouse``: its file name only, dbt running in its
folder for the call, so the variables and the profile are the same for every warehouse of that name
and dbt's parse cache (``partial_parse.msgpack`` in the target folder) holds across them (a
changed variable or profile makes dbt parse the whole project again, ~10 s; the cache of each
configuration is kept aside for its next run, :mod:`pipelines.dbt_parse_cache`). On
PostgreSQL, target ``postgres`` connects to the database dlt loads into
(``DESTINATION__POSTGRES__CREDENTIALS``): host, port, user and database as the dbt variables
``postgres_host``/``_port``/``_user``/``_dbname``, the password only in the environment variable
``DBT_ENV_SECRET_POSTGRES_PASSWORD`` (dbt keeps such values out of its logs and artifacts), with
``PGTZ=UTC`` (the session's timezone, so a ``timestamptz`` cast to a date falls on the UTC day,
as on DuckDB); both variables are set for the
duration of the call only. The models land in the schemas ``staging``, ``intermediate`` and
``marts`` beside the raw ones. The dbt variable ``now`` is the project's instant
(:attr:`core.project.Project.now`) when ``WFM_SYNC_NOW`` pins it; otherwise it is not passed and the
models take the build's start (dbt's ``run_started_at``), so the variables stay the same from run to
run and dbt re-parses only what changed.

The project's packages are vendored in ``sql/vendor/`` (``sql/packages.yml``, ``local:``);
:func:`run_dbt` links them with ``dbt deps`` the first time, offline. dbt runs ``--quiet``, its
file log at ``info`` (``WFM_SYNC_DBT_VERBOSE=1``: its per-node log on the console, and every
statement in the file). The dbt-project-evaluator package is built
only with the dbt variable ``evaluate_project``.
"""

from __future__ import annotations

import contextlib
import json
import logging
from pathlib import Path
from typing import Any

from filelock import FileLock

from core import settings
from core.progress import Progress
from core.project import Project
from core.settings import Settings

from .dbt_parse_cache import parse_key, use_parse_cache
from .warehouse import postgres_target

logger = logging.getLogger("pipelines.models")


def project_dir(configured: Settings | None = None) -> Path:
    """The dbt project: setting ``dbt_project_dir`` of ``configured`` when set, else the one
    shipped with the package (``pipelines/dbt_project``: in the repository a link to ``sql/``, in
    an installed wheel its copy, package data)."""
    chosen = configured.dbt_project_dir if configured is not None else None
    return chosen or (Path(__file__).parent / "dbt_project").resolve()


def target_dir(configured: Settings) -> Path:
    """Where dbt writes its artifacts: setting ``dbt_target_dir`` (``WFM_SYNC_DBT_TARGET_DIR``)
    or the dbt project's ``target/``.

    Two dbt runs at once (``wfm-sync status`` beside a nightly, or parallel test workers) each
    need their own: dbt rewrites its manifest and parse cache there on every run.
    """
    return configured.dbt_target_dir or project_dir(configured) / "target"


INCREMENTAL_NOTE = "incremental: "
"""Prefix of the log lines in which an incremental mart says what it derives
(``sql/macros/incremental.sql``): ``incremental: <mart>: <what>``."""

PACKAGES = ("dbt_utils", "dbt_project_evaluator")
"""The project's dbt packages (``sql/packages.yml``), vendored in ``sql/vendor/``."""


def run_dbt(
    args: list[str],
    warehouse: Path | None = None,
    variables: dict[str, Any] | None = None,
    *,
    project: Project,
    notes: dict[str, str] | None = None,
) -> Any:
    """Invoke dbt in-process on the dbt project and ``project``'s warehouse (``warehouse`` when
    given); returns dbt's runner result.

    DuckDB: the warehouse file's name reaches ``profiles.yml`` as the dbt variable ``warehouse``,
    and dbt runs in the file's folder for the call (the process's working directory is changed and
    given back: no other thread of the process may rely on it meanwhile), so dbt parses only what
    changed from one warehouse to the next. PostgreSQL
    (:func:`pipelines.warehouse.postgres_target`): target ``postgres``, its host, port, user and
    database as dbt variables, and, for the duration of the call only, the password in
    ``DBT_ENV_SECRET_POSTGRES_PASSWORD`` and ``PGTZ=UTC`` (the session's timezone, UTC as DuckDB's)
    in the environment: the one hand-off of ours through the environment, as dbt reads a secret
    nowhere else without logging it. ``variables`` go beside them (``--vars``), and ``now`` (epoch
    seconds) when ``WFM_SYNC_NOW`` pins the clock, ``currency`` when the project's setting
    ``currency`` names it; otherwise the models take the build's start (dbt's ``run_started_at``) as
    now, and the variables stay the same from run to run, so dbt parses only what changed. The
    parse cache of this configuration (variables, target, project) is set in place first and the
    one of another configuration kept aside (:func:`pipelines.dbt_parse_cache.use_parse_cache`),
    unless ``args`` name their own ``--target-path``. Every finished node (model, test, unit
    test, source) is counted in a :class:`core.progress.Progress` line ``dbt <command>``, out of
    dbt's total once it numbers its nodes (``LogStartLine``); the incremental marts' notes
    (:data:`INCREMENTAL_NOTE`) go into ``notes`` by mart when given.

    Raises:
        ValueError: PostgreSQL credentials missing (:func:`pipelines.warehouse.postgres_target`).
        OSError: The target folder cannot be written (the message names it and the setting).
    """
    from dbt.cli.main import dbtRunner

    _install_packages(project_dir(project.settings))
    progress = Progress(f"dbt {args[0]}", unit="nodes", pages_unit="nodes", logger=logger)

    def on_event(event: Any) -> None:
        total = getattr(event.data, "total", 0)
        if total and event.info.name == "LogStartLine":
            progress.total = max(progress.total or 0, int(total))  # dbt's "1 of 443 START"
        if event.info.name == "NodeFinished":
            progress.page(1)
        elif event.info.name == "JinjaLogInfo" and notes is not None:
            message = str(event.data.msg)
            if message.startswith(INCREMENTAL_NOTE):
                mart, _, what = message.removeprefix(INCREMENTAL_NOTE).partition(": ")
                notes[mart] = what

    folder = _duckdb_folder(project, warehouse)
    target_args, connection, environment = _target(project, warehouse, folder)
    arguments = _dbt_arguments(args, target_args, connection, variables, project)
    if "--target-path" not in args:  # the caller's own target folder: its cache is its own
        _use_parse_cache(target_dir(project.settings), arguments)
    inside = contextlib.chdir(folder) if folder else contextlib.nullcontext()
    try:
        with settings.environment(environment), inside:
            result = dbtRunner(callbacks=[on_event]).invoke(arguments)
        progress.done()
        return result
    finally:
        if project.destination == "duckdb":
            _release_warehouse()


def _use_parse_cache(target: Path, arguments: list[str]) -> None:
    """:func:`pipelines.dbt_parse_cache.use_parse_cache` for ``arguments`` in ``target``.

    Raises:
        OSError: ``target`` cannot be written; the message names the folder and the setting.
    """
    try:
        use_parse_cache(target, parse_key(arguments))
    except OSError as exc:
        raise OSError(
            f"dbt's target folder {target} cannot be written ({exc.strerror or exc}): check "
            "WFM_SYNC_DBT_TARGET_DIR"
        ) from exc


def _dbt_arguments(
    args: list[str],
    target_args: list[str],
    connection: dict[str, Any],
    variables: dict[str, Any] | None,
    project: Project,
) -> list[str]:
    """dbt's command line for ``args`` under ``project``'s settings: quiet, its file log
    (``logs/dbt.log``) at ``info`` (a line per node, not every statement: the ``debug`` file log
    costs about 6 % of a build), unless ``dbt_verbose``; the target, the project and its
    profiles; the target and log paths;
    ``--vars`` of the connection, ``now`` (only when the clock is pinned: a var that changes on
    every run makes dbt re-parse the whole project, ~10 s), ``currency`` (when named) and
    ``variables``."""
    configured = project.settings
    pinned = {"now": project.now} if (configured.now or "").strip() else {}
    named = {"currency": configured.currency} if configured.currency else {}
    dbt_vars = json.dumps({**connection, **pinned, **named, **(variables or {})})
    verbosity = [] if configured.dbt_verbose else ["--quiet", "--log-level-file", "info"]
    paths = [] if "--target-path" in args else ["--target-path", str(target_dir(configured))]
    if configured.dbt_target_dir and "--log-path" not in args:
        paths += ["--log-path", str(configured.dbt_target_dir / "logs")]
    folder = str(project_dir(configured))
    return [
        *verbosity, *args, *target_args, *paths, "--vars", dbt_vars,
        "--project-dir", folder, "--profiles-dir", folder, "--no-use-colors",
    ]  # fmt: skip


def _target(
    project: Project, warehouse: Path | None, folder: Path | None
) -> tuple[list[str], dict[str, Any], dict[str, str]]:
    """What points dbt at ``project``'s warehouse (``warehouse`` when given): ``(target
    arguments, dbt variables, environment)``.

    DuckDB: ``([], {"warehouse": <file name>}, {})`` for a dbt run in ``folder``
    (:func:`_duckdb_folder`), the file's absolute path when ``folder`` is ``None``.
    PostgreSQL: ``(["--target", "postgres"], {"postgres_host", "postgres_port", "postgres_user",
    "postgres_dbname"}, {"DBT_ENV_SECRET_POSTGRES_PASSWORD": <password>, "PGTZ": "UTC"})``; the
    password is in the environment only, never in the arguments or variables (dbt logs those).

    Raises:
        ValueError: PostgreSQL credentials missing (:func:`pipelines.warehouse.postgres_target`).
    """
    if project.destination == "postgres":
        target = postgres_target()
        connection = {
            "postgres_host": target.host,
            "postgres_port": target.port,
            "postgres_user": target.user,
            "postgres_dbname": target.database,
        }
        environment = {"DBT_ENV_SECRET_POSTGRES_PASSWORD": target.password, "PGTZ": "UTC"}
        return ["--target", "postgres"], connection, environment
    path = (warehouse or project.warehouse).resolve()
    return [], {"warehouse": path.name if folder else str(path)}, {}


def _duckdb_folder(project: Project, warehouse: Path | None) -> Path | None:
    """The folder a dbt run on ``project``'s DuckDB warehouse (``warehouse`` when given) runs in,
    the file's own; ``None`` on PostgreSQL, or when the folder does not exist (dbt then gets the
    file's absolute path)."""
    if project.destination != "duckdb":
        return None
    folder = (warehouse or project.warehouse).resolve().parent
    return folder if folder.is_dir() else None


def _install_packages(project: Path) -> None:
    """``dbt deps`` when a package of :data:`PACKAGES` is not linked in ``dbt_packages/`` yet
    (a fresh clone). Every package is a ``local:`` copy in ``sql/vendor/``: no network.

    Raises:
        RuntimeError: dbt could not install them.
    """
    installed = project / "dbt_packages"
    if all((installed / name).exists() for name in PACKAGES):
        return
    from dbt.cli.main import dbtRunner

    # dbt deps empties dbt_packages/ first: two processes starting on a fresh clone take turns
    with FileLock(str(project / ".dbt_packages.lock")):
        if all((installed / name).exists() for name in PACKAGES):
            return
        result = dbtRunner().invoke(
            ["--quiet", "deps", "--project-dir", str(project), "--profiles-dir", str(project)]
        )
    if not result.success:
        raise RuntimeError(f"dbt deps failed: {result.exception}")


def _release_warehouse() -> None:
    """Close dbt-duckdb's cached database handle.

    dbt-duckdb keeps the DuckDB file open in the process after ``invoke`` returns; a long-lived
    process (a Prefect worker, this job followed by others) would then hold the file's lock, and
    even read-only connections from the same process would be refused.
    """
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager

    environment = DuckDBConnectionManager._ENV
    if environment is not None:
        environment.close()
    DuckDBConnectionManager.close_all_connections()
