"""The ``wfm-sync`` command (console script ``wfm-sync = "flows.cli:main"``).

One module per command group, each a thin layer over a flow or a job:

* :mod:`~flows.cli.sync`: ``sync`` (the ``nightly_sync`` flow once) and ``status``;
* :mod:`~flows.cli.backfill`: ``backfill`` (a past period of windowed streams, on demand);
* :mod:`~flows.cli.schedule`: ``serve`` and ``deploy`` (the Prefect deployments);
* :mod:`~flows.cli.webhooks`: ``webhooks serve`` (the receiver) and ``webhooks fold``;
* :mod:`~flows.cli.models`: ``models build``, ``models publish``, ``models docs``;
* :mod:`~flows.cli.documents`: ``documents put-entry`` and ``documents bulk``;
* :mod:`~flows.cli.emulator`: ``emulator`` (serve), ``emulator mutate``, ``emulator
  send-webhooks``;
* :mod:`~flows.cli.dashboard`: ``dashboard`` (the marimo app over the snapshot) and ``report``
  (the static HTML report);
* :mod:`~flows.cli.demo`: ``demo``, the whole product end to end on this machine.

Shared parts: :mod:`~flows.cli.terminal` (consoles, logging, the failure message and exit code),
:mod:`~flows.cli.render` (one printer per job summary), :mod:`~flows.cli.live` (the live
display on a terminal). Exit codes: 0 done, 1 a step failed (or ``status`` found a problem), 2
bad input or configuration.
"""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Annotated

import typer

from core.private import private_files
from core.settings import PROJECT_DIR_VARIABLE

from . import backfill, dashboard, demo, documents, emulator, models, schedule, sync, webhooks

PREFECT_DEFAULTS = {
    "PREFECT_LOGGING_EXTRA_LOGGERS": "sources,pipelines",
    # no usage data leaves the machine: a Prefect server started from here sends none, and
    # Prefect's client analytics (events to its vendor) and dbt's usage statistics honour
    # DO_NOT_TRACK, whatever a Prefect server elsewhere says
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    # dlt's telemetry, off wherever the project's .dlt/config.toml is not read (a run from
    # another directory without --project-dir, a pip-installed command)
    "RUNTIME__DLTHUB_TELEMETRY": "false",
    "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
    # one-shot runs without a Prefect API have no flow run to send log lines to: no warning per line
    "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
}
"""Quiet, private settings for a command-line run and the processes it starts: Prefect's (read
when it is imported), dbt's and dlt's telemetry opt-outs; a variable the user set wins."""

app = typer.Typer(
    name="wfm-sync",
    help="Keep an analytics warehouse in step with a Connecteam account.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # inherited by every command
)
app.command()(sync.sync)
app.command()(schedule.serve)
app.command()(schedule.deploy)
app.command()(sync.status)
app.command()(backfill.backfill)
app.command()(demo.demo)
app.command()(dashboard.dashboard)
app.command()(dashboard.report)
app.add_typer(emulator.app, name="emulator")
app.add_typer(webhooks.app, name="webhooks")
app.add_typer(models.app, name="models")
app.add_typer(documents.app, name="documents")

EXIT_CODES = (
    "Exit codes: 0 done; 1 the run failed (the provider, the warehouse, a stream, a step); "
    "2 usage or configuration (an unknown option or name, a missing or malformed setting, "
    "refused credentials, an unreachable host or PREFECT_API_URL, an unwritable path)."
)
"""The exit codes every command shares, shown at the end of each command's ``--help``."""


def _state_exit_codes(group: typer.Typer) -> None:
    """Put :data:`EXIT_CODES` at the end of the help of every command of ``group`` and of its
    sub-groups (a command's own epilog is kept)."""
    for command in group.registered_commands:
        command.epilog = command.epilog or EXIT_CODES
    for sub in group.registered_groups:
        sub.epilog = EXIT_CODES  # the group's own help (emulator serves when given no command)
        if sub.typer_instance is not None:
            _state_exit_codes(sub.typer_instance)


_state_exit_codes(app)


def installed_version() -> str:
    """The installed distribution's version (``pyproject.toml``'s ``version``), or ``unknown``
    when the package runs from a source tree that was never installed."""
    try:
        return package_version("wfm-sync")
    except PackageNotFoundError:
        return "unknown"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"wfm-sync {installed_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    context: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
    project_dir: Annotated[
        Path | None,
        typer.Option(
            "--project-dir",
            envvar=PROJECT_DIR_VARIABLE,
            exists=True,
            file_okay=False,
            resolve_path=True,
            help="The project's home: .dlt/ is read from it and relative paths (the warehouse, "
            "the inbox) resolve from it, whatever the current directory [default: "
            f"{PROJECT_DIR_VARIABLE}, else the current directory].",
        ),
    ] = None,
    warehouse: Annotated[
        Path | None,
        typer.Option(
            "--warehouse",
            dir_okay=False,
            help="The DuckDB warehouse file; the snapshot, report, Parquet marts, run log and "
            "dlt's folder sit beside it unless a setting moves them [default: "
            "DESTINATION__DUCKDB__CREDENTIALS, else data/warehouse.duckdb].",
        ),
    ] = None,
) -> None:
    """Keep an analytics warehouse in step with a Connecteam account."""
    if project_dir is not None:
        os.environ[PROJECT_DIR_VARIABLE] = str(project_dir)  # dlt's own run-directory setting
    # read by terminal.configured_project, where each command resolves its configuration
    context.obj = {"warehouse": warehouse}


def set_prefect_defaults() -> None:
    """Put :data:`PREFECT_DEFAULTS` into the environment where the user set nothing; call it
    before Prefect is first imported."""
    for name, value in PREFECT_DEFAULTS.items():
        os.environ.setdefault(name, value)


def main() -> None:
    """Entry point of the ``wfm-sync`` console script: files it creates private
    (:func:`core.private.private_files`), Prefect's quiet defaults, then the command."""
    private_files()
    set_prefect_defaults()
    app()
