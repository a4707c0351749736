"""``wfm-sync dashboard`` (the marimo app over the snapshot) and ``wfm-sync report`` (the static
HTML report, on demand)."""

from __future__ import annotations

import importlib.util
import os
import sys
from datetime import date
from pathlib import Path
from typing import Annotated

import typer

from core.paths import ProjectPaths, paths_in

from .render import print_report
from .terminal import configured_project, console, fail, setup_logging

SnapshotOption = Annotated[
    Path | None,
    typer.Option(
        help="The published snapshot (default: WFM_SYNC_SNAPSHOT or data/analytics.duckdb)."
    ),
]
RunsOption = Annotated[
    Path | None,
    typer.Option(
        help="The run log for the data-health section (default: runs.jsonl beside --snapshot, "
        "else WFM_SYNC_RUN_LOG or data/runs.jsonl)."
    ),
]
TodayOption = Annotated[
    str | None,
    typer.Option(help="Last day of the 14-day range, YYYY-MM-DD (default today, UTC)."),
]


def notebook_file() -> Path:
    """The dashboard notebook's file (:mod:`dashboard.notebook`), found without running it."""
    spec = importlib.util.find_spec("dashboard.notebook")
    if spec is None or spec.origin is None:  # pragma: no cover - a broken install
        raise RuntimeError("the dashboard notebook is not installed: reinstall wfm-sync")
    return Path(spec.origin)


def marimo_command(
    snapshot: Path, runs: Path, host: str, port: int, today: date | None
) -> list[str]:
    """The ``marimo run`` command serving the notebook (headless: no browser is opened)."""
    arguments = ["--snapshot", str(snapshot), "--runs", str(runs)]
    if today is not None:
        arguments += ["--today", today.isoformat()]
    return [
        sys.executable, "-m", "marimo", "run", str(notebook_file()),
        "--host", host, "--port", str(port), "--headless",
        "--", *arguments,
    ]  # fmt: skip


def _paths(configured: ProjectPaths, snapshot: Path | None, runs: Path | None) -> tuple[Path, Path]:
    """The snapshot to show and its run log: ``snapshot`` and ``runs`` when given, else the
    configured project's.

    Raises:
        FileNotFoundError: There is no snapshot there (the message says how to make one).
    """
    # a snapshot named on the command line (the demo's) has its project's files beside it
    project = configured if snapshot is None else paths_in(snapshot.parent)
    chosen = snapshot or project.snapshot
    if not chosen.exists():
        raise FileNotFoundError(
            f"no snapshot at {chosen}: run `wfm-sync sync` (or `make demo`, then "
            "--snapshot data/demo/analytics.duckdb) first"
        )
    return chosen, runs if runs is not None else project.run_log


def dashboard(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 2718,
    snapshot: SnapshotOption = None,
    runs: RunsOption = None,
    today: TodayOption = None,
) -> None:
    """Serve the dashboard: hours, attendance, cost, schedule changes, timesheets and data
    health over the published snapshot (read-only: a nightly can publish meanwhile). Becomes
    `marimo run` on the dashboard notebook (the same process) until Ctrl+C or a stop signal."""
    setup_logging(False)
    try:
        chosen, log = _paths(configured_project("dashboard").paths, snapshot, runs)
        last_day = date.fromisoformat(today) if today else None
    except (FileNotFoundError, ValueError) as exc:
        fail(exc, "dashboard")
    command = marimo_command(chosen, log, host, port, last_day)
    console.print(
        f"dashboard on [bold]http://{host}:{port}[/] (snapshot {chosen}, read-only); "
        "Ctrl+C stops it"
    )
    environment = {**os.environ, "MARIMO_SKIP_UPDATE_CHECK": "1"}
    sys.stdout.flush()
    sys.stderr.flush()
    # the command becomes the server: a stop signal (SIGTERM from a supervisor, a test, a
    # container's stop) reaches marimo itself instead of leaving it running behind its parent
    os.execve(command[0], command, environment)


def report(
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Where to write (default: WFM_SYNC_REPORT or data/report.html)."
        ),
    ] = None,
    snapshot: SnapshotOption = None,
    runs: RunsOption = None,
    today: TodayOption = None,
) -> None:
    """Write the static report: the dashboard for the last 14 days as one self-contained HTML
    file (charts as SVG, no script, opens offline; the nightly writes it after each publish)."""
    setup_logging(False)
    from dashboard.report import write_report

    try:
        project = configured_project("report")
        configured = project.paths
        chosen, log = _paths(configured, snapshot, runs)
        summary = write_report(
            chosen,
            output or configured.report,
            runs=log,
            now=project.now,
            today=date.fromisoformat(today) if today else None,
        )
    except Exception as exc:  # noqa: BLE001
        fail(exc, "report")
    print_report(summary)
