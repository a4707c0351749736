"""``wfm-sync backfill``: re-pull a past period of windowed streams on demand
(:func:`pipelines.backfill.run_backfill`), a line per chunk and a summary at the end."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from .live import live_progress
from .terminal import (
    EXIT_CONFIGURATION,
    AllowInsecureOption,
    configured_project,
    console,
    err,
    fail,
    setup_logging,
)

if TYPE_CHECKING:
    from pipelines.backfill import BackfillSummary, ChunkResult


def backfill(
    streams: Annotated[
        str,
        typer.Option(
            help="Comma-separated windowed streams, e.g. shifts,time_activities (see "
            "docs/streams.md: the streams with a window).",
            show_default=False,
        ),
    ],
    from_: Annotated[
        str,
        typer.Option("--from", help="First day of the period (ISO date, UTC).", show_default=False),
    ],
    to: Annotated[
        str,
        typer.Option(
            "--to", help="Last day of the period, inclusive (ISO date, UTC).", show_default=False
        ),
    ],
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False,
    allow_insecure: AllowInsecureOption = False,
) -> None:
    """Re-pull a past period of windowed streams into the raw tables the nightly loads.

    The period is split per stream into chunks no wider than the provider's request window
    (time activities 92 days, timesheets 45, time-off requests and pay rates 365; 31 for the
    others), each pulled within the rate-limit budget and loaded on its own, merged on the
    stream's key: rows are never duplicated and nothing is marked deleted. Killed, the same
    command resumes, skipping the chunks already loaded. The nightly's state (windows, cursors,
    digests) is left as it is; a backfill and a sync take turns on the warehouse.
    """
    import time

    from pipelines.backfill import check_period, check_streams

    try:
        chosen = check_streams(streams.split(","))
        period = check_period(from_, to)
    except ValueError as exc:
        err.print(f"[bold red]backfill:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(code=EXIT_CONFIGURATION) from None
    setup_logging(verbose)
    from pipelines.backfill import run_backfill

    project = configured_project("backfill")
    started = time.monotonic()
    try:
        with live_progress():
            summary = run_backfill(
                chosen, *period, project=project, allow_insecure=allow_insecure,
                on_chunk=print_chunk,
            )  # fmt: skip
    except Exception as exc:  # noqa: BLE001 - reported as a clean message and exit code
        fail(exc, "backfill")
    print_backfill(summary, time.monotonic() - started)


def print_chunk(chunk: ChunkResult) -> None:
    """One line per chunk: ``[2/6] shifts 2025-02-01..2025-03-03: 1,234 rows, 5 requests``, or
    ``skipped (loaded by an earlier run)``."""
    where = f"[{chunk.position}/{chunk.chunks}] {chunk.stream} {chunk.label}"
    if not chunk.pulled:
        console.print(f"{where}: skipped (loaded by an earlier run)", highlight=False)
        return
    rows = chunk.rows.get(chunk.stream, 0)
    console.print(
        f"{where}: {rows:,} rows new or changed, {chunk.requests} requests, {chunk.seconds:.1f} s",
        highlight=False,
    )


def print_backfill(summary: BackfillSummary, wall_seconds: float) -> None:
    """The summary: chunks pulled and skipped, rows per table, requests, time taken."""
    from .render import count_table

    console.print(
        f"backfill {summary.first}..{summary.last} of {', '.join(summary.streams)} into "
        f"{summary.warehouse}: {summary.pulled} chunk(s) pulled, {summary.skipped} skipped as "
        "already done",
        highlight=False,
    )
    if summary.resumed_packages:
        console.print(f"finished {summary.resumed_packages} load package(s) of an interrupted run")
    if summary.rows:
        console.print(count_table("table", "rows loaded", summary.rows))
    per_endpoint = ", ".join(f"{path} {n}" for path, n in sorted(summary.requests.items()))
    console.print(
        f"requests: {summary.total_requests} ({per_endpoint or 'none'}); retries: "
        f"{summary.retries}; 429 answers: {summary.throttled}; waited for rate limit: "
        f"{summary.paced_seconds:.1f} s",
        highlight=False,
    )
    if summary.skipped_parents:
        console.print(
            "skipped, vanished since they were listed: " + ", ".join(summary.skipped_parents)
        )
    console.print(f"time taken: {wall_seconds:.1f} s")
