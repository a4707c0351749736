"""The ``wfm-sync`` command.

``wfm-sync sync`` runs the ``nightly_sync`` flow once; ``wfm-sync emulator`` serves the local
stand-in of the provider; ``wfm-sync demo`` shows the whole slice end to end on this machine.
"""

from __future__ import annotations

import logging
import os
from typing import Annotated, Any

# Quiet defaults for a command-line run; any value the user set wins.
os.environ.setdefault("PREFECT_LOGGING_EXTRA_LOGGERS", "sources,pipelines")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "WARNING")

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    name="wfm-sync",
    help="Keep an analytics warehouse in step with a Connecteam account.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def _setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        datefmt="%H:%M:%S",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)


def print_summary(summary: Any, wall_seconds: float | None = None) -> None:
    """Print rows loaded per table, requests made and time taken."""
    console.print(f"warehouse: {summary.warehouse}, dataset {summary.dataset}")
    table = Table()
    table.add_column("table")
    table.add_column("rows loaded", justify="right")
    for name, rows in summary.rows.items():
        table.add_row(name, f"{rows:,}")
    console.print(table)
    per_endpoint = ", ".join(f"{path} {n}" for path, n in sorted(summary.requests.items()))
    console.print(
        f"requests: {summary.total_requests} ({per_endpoint or 'none'}); retries: "
        f"{summary.retries}; 429 answers: {summary.throttled}; waited for rate limit: "
        f"{summary.paced_seconds:.1f} s"
    )
    if summary.resumed_packages:
        console.print(f"finished {summary.resumed_packages} load package(s) of an interrupted run")
    took = wall_seconds if wall_seconds is not None else summary.duration_seconds
    console.print(f"time taken: {took:.1f} s")


def _fail(exc: BaseException) -> None:
    """Print a one-paragraph error (no traceback, no secrets) and exit non-zero."""
    from sources.connecteam import find_connecteam_error

    cause: BaseException = find_connecteam_error(exc) or exc
    err.print(f"[bold red]sync failed:[/] {type(cause).__name__}: {cause}", highlight=False)
    raise typer.Exit(code=1)


@app.command()
def sync(
    streams: Annotated[
        str, typer.Option(help="Comma-separated streams: users, forms, schedulers, shifts.")
    ] = "users,forms,schedulers,shifts",
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False,
) -> None:
    """Run the nightly_sync flow once: load the API's users, forms, schedulers and shifts.

    Reads SOURCES__CONNECTEAM__API_KEY (or CLIENT_ID/CLIENT_SECRET), SOURCES__CONNECTEAM__BASE_URL
    and DESTINATION__DUCKDB__CREDENTIALS (default data/warehouse.duckdb) from the environment or
    .dlt/. Exits non-zero when the run fails.
    """
    import time

    _setup_logging(verbose)
    from flows.nightly import nightly_sync

    chosen = tuple(s.strip() for s in streams.split(",") if s.strip())
    started = time.monotonic()
    try:
        summary = nightly_sync(streams=chosen, streams_label="+".join(chosen))
    except Exception as exc:  # noqa: BLE001 - reported as a clean message and exit code
        _fail(exc)
        return
    print_summary(summary, time.monotonic() - started)


@app.command()
def emulator(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
    seed: Annotated[int, typer.Option(help="Seed of the generated account.")] = 42,
    users: Annotated[int, typer.Option(help="Users (active and archived).")] = 2000,
    forms: Annotated[int, typer.Option(help="Forms.")] = 10,
    schedulers: Annotated[int, typer.Option(help="Schedulers.")] = 4,
    shifts: Annotated[int, typer.Option(help="V1 shift rows in all.")] = 20000,
    api_key: Annotated[str, typer.Option(help="The API key clients must send.")] = "emulator-key",
    minute_limit: Annotated[int, typer.Option(help="Requests per minute window.")] = 100,
    day_limit: Annotated[int, typer.Option(help="Requests per UTC day.")] = 10000,
    window_seconds: Annotated[float, typer.Option(help="Length of the 'minute' window.")] = 60.0,
    latency: Annotated[float, typer.Option(help="Seconds added to every answer.")] = 0.0,
    fault_rate: Annotated[
        float, typer.Option(help="Fraction of requests answered 429/500/503 or dropped.")
    ] = 0.0,
    paging_total: Annotated[bool, typer.Option(help="Send paging.total in paged answers.")] = False,
) -> None:
    """Serve a local stand-in of the Connecteam API with seeded data (Ctrl-C to stop).

    OAuth: client id 'emulator-client', secret 'emulator-secret'. Change data between runs with
    `wfm-sync emulator-mutate`.
    """
    from emulator import EmulatorConfig, ServerOptions
    from emulator.server import serve

    config = EmulatorConfig(
        seed=seed, users=users, forms=forms, schedulers=schedulers, shifts=shifts
    )
    options = ServerOptions(
        api_key=api_key,
        minute_limit=minute_limit,
        day_limit=day_limit,
        window_seconds=window_seconds,
        latency=latency,
        fault_rate=fault_rate,
        paging_total=paging_total,
    )
    err.print(
        f"emulator on http://{host}:{port} ({users} users, {shifts} shift rows); "
        f"export SOURCES__CONNECTEAM__BASE_URL=http://{host}:{port} "
        "SOURCES__CONNECTEAM__API_KEY=<the --api-key>"
    )
    serve(config, options, host=host, port=port)


@app.command("emulator-mutate")
def emulator_mutate(
    url: Annotated[str, typer.Option(help="The emulator's base URL.")] = "http://127.0.0.1:8765",
    users: Annotated[int, typer.Option(help="Users to edit.")] = 10,
    shifts: Annotated[int, typer.Option(help="Shift rows to edit.")] = 10,
    delete_shifts: Annotated[int, typer.Option(help="Shift rows to delete.")] = 0,
    new_shifts: Annotated[int, typer.Option(help="Shift rows to add.")] = 0,
) -> None:
    """Change records at a running emulator, so the next sync has something to pick up."""
    import httpx

    body = {
        "users": users,
        "shifts": shifts,
        "delete_shifts": delete_shifts,
        "new_shifts": new_shifts,
    }
    response = httpx.post(f"{url.rstrip('/')}/_emulator/mutate", json=body, timeout=60)
    response.raise_for_status()
    touched = response.json()
    console.print({k: len(v) for k, v in touched.items()})


@app.command()
def demo(
    users: Annotated[int, typer.Option(help="Users at the emulator.")] = 3000,
    shifts: Annotated[int, typer.Option(help="V1 shift rows at the emulator.")] = 30000,
    warehouse: Annotated[
        str, typer.Option(help="DuckDB file of the demo.")
    ] = "data/demo/warehouse.duckdb",
) -> None:
    """Start the emulator, sync twice through the nightly_sync flow, and show the warehouse."""
    _setup_logging(False)
    from flows.demo import run_demo

    try:
        run_demo(users=users, shifts=shifts, warehouse=warehouse, console=console)
    except Exception as exc:  # noqa: BLE001
        _fail(exc)


def main() -> None:
    """Entry point of the ``wfm-sync`` console script."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
