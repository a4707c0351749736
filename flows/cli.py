"""The ``wfm-sync`` command.

``wfm-sync sync`` runs the ``nightly_sync`` flow once; ``wfm-sync emulator`` serves the local
stand-in of the provider; ``wfm-sync demo`` shows the whole slice end to end on this machine.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

# Quiet defaults for a command-line run; any value the user set wins.
os.environ.setdefault("PREFECT_LOGGING_EXTRA_LOGGERS", "sources,pipelines")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_LOGGING_LEVEL", "WARNING")
# one-shot runs without a Prefect API have no flow run to send log lines to: no warning per line
os.environ.setdefault("PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW", "ignore")

import typer
from rich.console import Console
from rich.markup import escape
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
    """Plain timestamped lines; on a terminal through rich, so they print above live progress."""
    level = logging.DEBUG if verbose else logging.INFO
    if err.is_terminal:
        from rich.logging import RichHandler

        handler: logging.Handler = RichHandler(console=err, show_path=False, markup=False)
        logging.basicConfig(level=level, format="%(name)s: %(message)s", handlers=[handler])
    else:
        logging.basicConfig(
            level=level, format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
            datefmt="%H:%M:%S",
        )  # fmt: skip
    logging.getLogger("httpx").setLevel(logging.WARNING)


@contextmanager
def live_progress() -> Iterator[None]:
    """On a terminal, one live line per stream (pages, rows or events, elapsed time) while the block
    runs; elsewhere nothing extra: :class:`sources.progress.Progress` logs plain lines."""
    if not err.is_terminal:
        yield
        return
    from rich.progress import Progress as Bars
    from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

    from sources.progress import progress_sink

    columns = (
        SpinnerColumn(finished_text="[green]✓[/]"),
        TextColumn("{task.description}"),
        TextColumn("{task.fields[counts]}"),
        TimeElapsedColumn(),
    )
    with Bars(*columns, console=err) as bars:
        tasks: dict[str, Any] = {}

        def sink(stream: str, counts: str, finished: bool) -> None:
            if stream not in tasks:
                tasks[stream] = bars.add_task(stream, total=None, counts="")
            bars.update(tasks[stream], counts=counts)
            if finished:
                bars.update(tasks[stream], total=1, completed=1)

        with progress_sink(sink):
            yield


def count_table(key: str, value: str, counts: dict[str, int], total: int | None = None) -> Table:
    """A two-column table of counts, optionally with a bold total row."""
    table = Table()
    table.add_column(key)
    table.add_column(value, justify="right")
    for name, n in counts.items():
        table.add_row(name, f"{n:,}")
    if total is not None:
        table.add_row("[bold]all[/]", f"[bold]{total:,}[/]")
    return table


def print_summary(summary: Any, wall_seconds: float | None = None) -> None:
    """Print rows loaded per table, requests made and time taken."""
    console.print(f"warehouse: {summary.warehouse}, dataset {summary.dataset}")
    console.print(count_table("table", "rows loaded", summary.rows))
    per_endpoint = ", ".join(f"{path} {n}" for path, n in sorted(summary.requests.items()))
    console.print(
        f"requests: {summary.total_requests} ({per_endpoint or 'none'}); retries: "
        f"{summary.retries}; 429 answers: {summary.throttled}; waited for rate limit: "
        f"{summary.paced_seconds:.1f} s"
    )
    if summary.resumed_packages:
        console.print(f"finished {summary.resumed_packages} load package(s) of an interrupted run")
    if summary.skipped_parents:
        console.print(
            "skipped, vanished since they were listed: " + ", ".join(summary.skipped_parents)
        )
    if summary.untyped_values:
        console.print(
            "values kept in untyped_values (not of their column's type): "
            + ", ".join(f"{t} {n:,}" for t, n in sorted(summary.untyped_values.items()))
        )
    if wall_seconds is not None:
        console.print(f"time taken: {wall_seconds:.1f} s")


def _fail(exc: BaseException, what: str = "sync") -> None:
    """Print a one-paragraph error (no traceback, no secrets) and exit non-zero."""
    from sources.connecteam import find_connecteam_error

    cause: BaseException = find_connecteam_error(exc) or exc
    err.print(
        f"[bold red]{what} failed:[/] {type(cause).__name__}: {escape(str(cause))}", highlight=False
    )
    raise typer.Exit(code=1)


@app.command()
def sync(
    streams: Annotated[
        str,
        typer.Option(
            help="Comma-separated streams (default all; see README, What lands in the warehouse)."
        ),
    ] = "all",
    steps: Annotated[
        str, typer.Option(help="Comma-separated steps: sync, fold, models, publish.")
    ] = "sync,fold,models,publish",
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False,
) -> None:
    """Run the nightly_sync flow once: sync the API, fold webhooks, build models, publish.

    Reads SOURCES__CONNECTEAM__API_KEY (or CLIENT_ID/CLIENT_SECRET), SOURCES__CONNECTEAM__BASE_URL,
    DESTINATION__DUCKDB__CREDENTIALS (default data/warehouse.duckdb) and WEBHOOKS__INBOX_URL from
    the environment or .dlt/. Prints rows loaded per table, requests made and time taken; exits
    non-zero when any step fails (a failing data test is named, with sample rows).
    """
    import time

    _setup_logging(verbose)
    from flows.nightly import StreamsFailedError, nightly_sync
    from flows.runner import run_flow
    from pipelines import STREAMS

    chosen = tuple(s.strip() for s in streams.split(",") if s.strip())
    chosen = STREAMS if chosen in ((), ("all",)) else chosen
    chosen_steps = tuple(s.strip() for s in steps.split(",") if s.strip())
    started = time.monotonic()
    try:
        with live_progress():
            result = run_flow(
                nightly_sync,
                streams=chosen,
                streams_label="all" if chosen == STREAMS else "+".join(chosen),
                steps=chosen_steps,
            )
    except StreamsFailedError as exc:
        print_nightly(exc.result, time.monotonic() - started)
        err.print(f"[bold red]sync failed for {len(exc.result.sync.failed_streams)} stream(s):[/]")
        for stream, reason in exc.result.sync.failed_streams.items():
            err.print(f"  - {stream}: {escape(reason)}", highlight=False)
        err.print("the other streams loaded; run the sync again once the cause is fixed")
        raise typer.Exit(code=1) from None
    except Exception as exc:  # noqa: BLE001 - reported as a clean message and exit code
        _fail(exc)
        return
    print_nightly(result, time.monotonic() - started)


emulator_app = typer.Typer(
    help="The local stand-in of the provider: serve it (default), change its data, send webhooks.",
    invoke_without_command=True,
)
app.add_typer(emulator_app, name="emulator")
webhooks_app = typer.Typer(help="Receive the provider's webhooks and fold them into the warehouse.")
app.add_typer(webhooks_app, name="webhooks")


@emulator_app.callback()
def emulator(
    ctx: typer.Context,
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
    time_clocks: Annotated[int, typer.Option(help="Time clocks.")] = 2,
    time_activities: Annotated[int, typer.Option(help="Time activities in all.")] = 400,
    activity_days: Annotated[int, typer.Option(help="Days the activities spread over.")] = 60,
    form_submissions: Annotated[int, typer.Option(help="Submissions per form.")] = 12,
    jobs: Annotated[int, typer.Option(help="Top-level jobs.")] = 8,
    time_off_requests: Annotated[int, typer.Option(help="Time-off requests.")] = 40,
    task_boards: Annotated[int, typer.Option(help="Task boards.")] = 2,
    tasks: Annotated[int, typer.Option(help="Tasks per board.")] = 30,
    data: Annotated[
        str,
        typer.Option(
            help="'emulator' (tidy seeded records) or 'spec' (records drawn from the provider's "
            "JSON schemas: missing fields, nulls, odd dates and timezones, huge numbers)."
        ),
    ] = "emulator",
    spec_width: Annotated[
        str, typer.Option(help="With --data spec: 'mixed' or 'wide' (every field present).")
    ] = "mixed",
) -> None:
    """Serve a local stand-in of the Connecteam API with seeded data (Ctrl-C to stop).

    OAuth: client id 'emulator-client', secret 'emulator-secret'. Subcommands change its data
    (`mutate`) or send webhooks (`send-webhooks`).
    """
    if ctx.invoked_subcommand is not None:
        return
    from emulator import EmulatorConfig, ServerOptions
    from emulator.operations_data import OperationsConfig
    from emulator.server import serve

    operations = OperationsConfig(
        time_clocks=time_clocks, time_activities=time_activities, activity_days=activity_days,
        form_submissions=form_submissions, jobs=jobs, time_off_requests=time_off_requests,
        task_boards=task_boards, tasks=tasks,
    )  # fmt: skip
    config = EmulatorConfig(
        seed=seed, users=users, forms=forms, schedulers=schedulers, shifts=shifts,
        operations=operations, data=data, spec_width=spec_width,
    )  # fmt: skip
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


@emulator_app.command("mutate")
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


@emulator_app.command("send-webhooks")
def emulator_send_webhooks(
    url: Annotated[str, typer.Option(help="The receiver's endpoint URL.")],
    token: Annotated[str, typer.Option(help="Webhook token (X-Webhook-Token).")] = "",
    events: Annotated[int, typer.Option(help="Distinct events to send.")] = 1000,
    families: Annotated[str, typer.Option(help="Comma-separated families (default all).")] = "",
    duplicate_rate: Annotated[float, typer.Option(help="Share of events sent twice.")] = 0.0,
    malformed_rate: Annotated[float, typer.Option(help="Share of malformed extra bodies.")] = 0.0,
    concurrency: Annotated[int, typer.Option(help="Requests in flight.")] = 16,
    signing_secret: Annotated[
        str, typer.Option(help="Sign with this Standard Webhooks secret.")
    ] = "",
    seed: Annotated[int, typer.Option(help="Seed of the payloads.")] = 1,
    data: Annotated[
        str,
        typer.Option(
            help="'emulator' (every catalogued type, tidy payloads) or 'spec' (payloads drawn "
            "from the spec's webhook schemas, as wild as they allow; --families does not apply)."
        ),
    ] = "emulator",
) -> None:
    """POST provider-like webhook events (every catalogued type, V1 and V2 shifts) to a receiver."""
    import asyncio

    from emulator.webhooks import build_burst, send_burst

    chosen = [f.strip() for f in families.split(",") if f.strip()] or None
    if data not in {"emulator", "spec"}:
        raise typer.BadParameter(f"{data!r}: choose 'emulator' or 'spec'", param_hint="--data")
    bodies = build_burst(
        events, seed=seed, families=chosen, duplicate_rate=duplicate_rate,
        malformed_rate=malformed_rate, data=data,
    )  # fmt: skip
    _setup_logging(False)
    with live_progress():
        report = asyncio.run(
            send_burst(
                url,
                bodies,
                token=token or None,
                signing_secret=signing_secret or None,
                concurrency=concurrency,
            )
        )
    print_burst(report)
    if report.statuses.get(0) or any(s >= 500 for s in report.statuses):
        raise typer.Exit(code=1)


def print_burst(report: Any) -> None:
    """Print what a webhook burst did."""
    rate = report.sent / report.seconds if report.seconds else 0.0
    console.print(
        f"sent {report.sent} POSTs in {report.seconds:.1f} s ({rate:,.0f}/s): "
        f"{report.duplicates_sent} duplicates, {report.malformed_sent} malformed; answers "
        + ", ".join(f"{code or 'no answer'}: {n}" for code, n in sorted(report.statuses.items()))
        + (
            f" ({', '.join(f'{e}: {n}' for e, n in report.errors.items())})"
            if report.errors
            else ""
        )
    )


@webhooks_app.command("serve")
def webhooks_serve(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    inbox_url: Annotated[
        str, typer.Option(help="Inbox database URL (default WEBHOOKS__INBOX_URL).")
    ] = "",
    open_: Annotated[
        bool, typer.Option("--open", help="Accept requests without a token (local tests only).")
    ] = False,
) -> None:
    """Receive the provider's webhooks on POST /webhooks/connecteam (GET /healthz for checks).

    Needs WEBHOOKS__TOKEN (or [webhooks] token in .dlt/secrets.toml) unless --open; the provider
    can be given the URL with ?token=... . Each event is committed to the inbox before the 200.
    """
    import uvicorn

    from sources.webhooks.receiver import ReceiverConfigError, create_app, settings_from_config

    _setup_logging(False)
    try:
        settings = settings_from_config(inbox_url or None, allow_open=open_)
    except ReceiverConfigError as exc:
        err.print(f"[bold red]cannot start:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(code=2) from None
    receiver = create_app(settings)
    err.print(
        f"receiving on http://{host}:{port}/webhooks/connecteam, inbox "
        f"{receiver.state.inbox.describe()}"
        + (" [bold yellow](open: no token checked)[/]" if settings.token is None else "")
    )
    # No access log: a sender may put the token in the query string.
    uvicorn.run(receiver, host=host, port=port, log_level="warning", access_log=False)


@webhooks_app.command("fold")
def webhooks_fold(
    batch_size: Annotated[int, typer.Option(help="Inbox rows per batch.")] = 100_000,
    retention_days: Annotated[
        float, typer.Option(help="Days folded inbox rows are kept before pruning.")
    ] = 7.0,
) -> None:
    """Run the fold_webhooks flow once: load received events into webhooks.events."""
    import time

    _setup_logging(False)
    from flows.fold import fold_webhooks
    from flows.runner import run_flow

    started = time.monotonic()
    try:
        with live_progress():
            summary = run_flow(fold_webhooks, batch_size=batch_size, retention_days=retention_days)
    except Exception as exc:  # noqa: BLE001
        _fail(exc, "fold")
        return
    print_fold(summary, time.monotonic() - started)


def print_fold(summary: Any, wall_seconds: float | None = None) -> None:
    """Print events folded per family, quarantined bodies, pruned rows and time taken."""
    console.print(f"warehouse: {summary.warehouse}, dataset webhooks; inbox: {summary.inbox}")
    console.print(count_table("family", "events folded", summary.families, summary.events))
    console.print(
        f"quarantined bodies folded: {summary.quarantined}; inbox rows pruned: {summary.pruned}; "
        f"arrived meanwhile: {summary.backlog}"
    )
    flagged = {
        "deliveries stored apart (same key, other body)": summary.key_conflicts,
        "implausible event times (left null)": summary.implausible_times,
        "bodies not loadable as JSON (kept as text)": summary.unreadable_payloads,
    }
    if any(flagged.values()):
        console.print("; ".join(f"{label}: {n}" for label, n in flagged.items() if n))
    if wall_seconds is not None:
        console.print(f"time taken: {wall_seconds:.1f} s")


def print_models(models: Any = None, published: Any = None) -> None:
    """Print the dbt build's outcome, the rows with untypable values, and the snapshot."""
    if models is not None:
        console.print(
            f"dbt build: {models.passed} models and tests passed, {models.warned} warnings, "
            f"{models.duration_seconds:.1f} s"
        )
        if models.untypable_rows:
            console.print(
                "rows with provider values that could not be typed (left null): "
                + ", ".join(f"{m} {n:,}" for m, n in sorted(models.untypable_rows.items()))
            )
    if published is not None:
        console.print(
            f"published {len(published.tables)} tables to {published.snapshot} "
            f"({published.duration_seconds:.1f} s)"
        )


def print_nightly(result: Any, wall_seconds: float) -> None:
    """Print every step of a nightly_sync run, then the time taken."""
    if result.sync.warehouse:
        print_summary(result.sync)
    if result.fold is not None:
        print_fold(result.fold)
    print_models(result.models, result.publish)
    console.print(f"time taken: {wall_seconds:.1f} s")


models_app = typer.Typer(help="The dbt models in sql/: build and test them, publish, document.")
app.add_typer(models_app, name="models")


@models_app.command("build")
def models_build(
    select: Annotated[str, typer.Option(help="dbt selection (default: everything).")] = "",
    publish: Annotated[
        bool, typer.Option(help="Publish the read-only snapshot after a successful build.")
    ] = True,
) -> None:
    """Run `dbt build` (models, data tests, unit tests) on the warehouse, then publish.

    A failing test is named with a sample of its offending rows, and the command exits 1.
    """
    import time

    _setup_logging(False)
    from flows.models import build_models_flow
    from flows.runner import run_flow

    started = time.monotonic()
    try:
        with live_progress():
            result = run_flow(build_models_flow, select=select or None, publish_after=publish)
    except Exception as exc:  # noqa: BLE001
        _fail(exc, "models build")
        return
    print_models(result.models, result.publish)
    console.print(f"time taken: {time.monotonic() - started:.1f} s")


@models_app.command("publish")
def models_publish() -> None:
    """Publish the warehouse as the read-only snapshot (default data/analytics.duckdb)."""
    from pipelines.publish import publish_snapshot

    try:
        print_models(published=publish_snapshot())
    except Exception as exc:  # noqa: BLE001
        _fail(exc, "publish")


@models_app.command("docs")
def models_docs() -> None:
    """Generate the dbt docs offline as one HTML file (sql/target/static_index.html)."""
    from pipelines.models import generate_docs

    _setup_logging(False)
    try:
        with live_progress():
            path = generate_docs()
    except Exception as exc:  # noqa: BLE001
        _fail(exc, "docs")
        return
    console.print(f"docs: {path} (open it in a browser; no server or internet needed)")


documents_app = typer.Typer(help="Record user document entries (one, or in bulk from CSV/DuckDB).")
app.add_typer(documents_app, name="documents")


def _run_documents(
    rows: list[Any], base_dir: Any, retry_unexpected: bool = False, resubmit_uncertain: bool = False
) -> None:
    try:
        _record_documents(rows, base_dir, retry_unexpected, resubmit_uncertain)
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001 - reported as a clean message and exit code
        _fail(exc, "documents")


def _record_documents(
    rows: list[Any], base_dir: Any, retry_unexpected: bool, resubmit_uncertain: bool
) -> None:
    from rich.progress import Progress

    from pipelines.documents import run_bulk

    _setup_logging(False)
    if console.is_terminal:
        with Progress(console=console, transient=True) as bar:
            task = bar.add_task("recording entries", total=len(rows))
            summary = run_bulk(
                rows,
                base_dir=base_dir,
                on_progress=lambda done, total, _o: bar.update(task, completed=done, total=total),
                retry_unexpected=retry_unexpected,
                resubmit_uncertain=resubmit_uncertain,
            )
    else:

        def log_line(done: int, total: int, outcome: dict[str, Any]) -> None:
            if done % 10 == 0 or done == total or outcome["error"]:
                console.print(f"{done}/{total} entries: {outcome['status']}", highlight=False)

        summary = run_bulk(
            rows,
            base_dir=base_dir,
            on_progress=log_line,
            retry_unexpected=retry_unexpected,
            resubmit_uncertain=resubmit_uncertain,
        )
    checked = (
        f"{summary.checked['recorded']} interrupted entries found recorded and "
        f"{summary.checked['absent']} absent by checking with the provider; "
        if summary.checked
        else ""
    )
    console.print(
        f"{summary.rows} rows: {summary.skipped} already recorded, {checked}"
        + (", ".join(f"{status} {n}" for status, n in sorted(summary.outcomes.items())) or
           "nothing submitted")
        + f"; {summary.requests} requests, {summary.duration_seconds:.1f} s; outcomes in "
        "connecteam.document_entries",
        highlight=False,
    )  # fmt: skip
    if summary.unexpected:
        statuses = ", ".join(f"{s} {n}" for s, n in sorted(summary.unexpected.items()))
        err.print(
            f"{sum(summary.unexpected.values())} row(s) recorded with a status other than "
            f"approved or pendingApproval ({statuses}), kept as the provider answered; they are "
            "not submitted again unless you pass --retry-unexpected",
            highlight=False,
        )
    for line, key, error in summary.failures[:20]:
        err.print(f"row {line} ({key}): {escape(error)}", highlight=False)
    for line, key, error in summary.uncertain[:20]:
        err.print(f"row {line} ({key}) uncertain: {escape(error)}", highlight=False)
    if summary.failures:
        err.print(
            f"{len(summary.failures)} row(s) failed; run the same command again to retry them"
        )
    if summary.uncertain:
        err.print(
            f"{len(summary.uncertain)} row(s) may have reached the provider without an answer; "
            "the next run checks them before submitting anything (--resubmit-uncertain sends "
            "them again if no check can run)"
        )
    if summary.failures or summary.uncertain:
        raise typer.Exit(code=1)


@documents_app.command("put-entry")
def documents_put_entry(
    user_id: Annotated[int, typer.Option(help="The user (integer >= 1).")],
    document_id: Annotated[int, typer.Option(help="The document.")],
    file: Annotated[str, typer.Option(help="The file to upload for the entry.")],
    field: Annotated[
        list[str] | None, typer.Option(help="Entry field as name=value (repeatable).")
    ] = None,
    note: Annotated[str, typer.Option(help="A note for the entry.")] = "",
) -> None:
    """Upload a file and record one document entry (approved or pendingApproval, by your
    permission on the document's pack)."""
    from pipelines.documents import BulkInputError, EntryRow

    fields = dict(item.split("=", 1) for item in (field or []) if "=" in item)
    try:
        row = EntryRow(user_id, document_id, file, fields, note or None)
    except BulkInputError as exc:
        err.print(f"[bold red]invalid entry:[/] {escape(str(exc))}")
        raise typer.Exit(code=2) from None
    _run_documents([row], None)


@documents_app.command("bulk")
def documents_bulk(
    csv_path: Annotated[
        str, typer.Option("--csv", help="CSV with user_id, document_id, file[, note, fields...].")
    ] = "",
    query: Annotated[
        str, typer.Option(help="DuckDB query returning the same columns (read-only warehouse).")
    ] = "",
    retry_unexpected: Annotated[
        bool,
        typer.Option(
            "--retry-unexpected",
            help="Submit again rows the provider answered with a status other than approved or "
            "pendingApproval (or none).",
        ),
    ] = False,
    resubmit_uncertain: Annotated[
        bool,
        typer.Option(
            "--resubmit-uncertain",
            help="Submit again rows whose PUT got no answer when no check with the provider can "
            "settle them (the PUT replaces the entry of the user and document).",
        ),
    ] = False,
) -> None:
    """Record many entries; each row's outcome is kept as soon as it is known. Re-running skips
    recorded rows, checks with the provider the rows an interrupted run may have sent, and
    retries failed ones."""
    from pathlib import Path

    from pipelines.documents import BulkInputError, read_csv, read_query

    if bool(csv_path) == bool(query):
        err.print("give exactly one of --csv or --query")
        raise typer.Exit(code=2)
    try:
        rows = read_csv(Path(csv_path)) if csv_path else read_query(query)
    except BulkInputError as exc:
        err.print(f"[bold red]cannot read the rows:[/] {escape(str(exc))}")
        raise typer.Exit(code=2) from None
    _run_documents(
        rows,
        Path(csv_path).resolve().parent if csv_path else None,
        retry_unexpected=retry_unexpected,
        resubmit_uncertain=resubmit_uncertain,
    )


def _schedules(cron: str, timezone: str, fold_every: int) -> Any:
    from flows.deployments import Schedules

    return Schedules(nightly_cron=cron, timezone=timezone, fold_every_seconds=fold_every)


CronOption = Annotated[
    str, typer.Option(envvar="WFM_SYNC_NIGHTLY_CRON", help="Cron of nightly_sync.")
]
TimezoneOption = Annotated[
    str, typer.Option(envvar="WFM_SYNC_TIMEZONE", help="IANA timezone of the cron.")
]
FoldEveryOption = Annotated[
    int, typer.Option(envvar="WFM_SYNC_FOLD_EVERY", help="Seconds between fold_webhooks runs.")
]


@app.command()
def serve(
    cron: CronOption = "0 2 * * *",
    timezone: TimezoneOption = "UTC",
    fold_every: FoldEveryOption = 300,
) -> None:
    """Register the nightly_sync and fold_webhooks deployments on the Prefect server
    (PREFECT_API_URL) and run their scheduled runs in this process until Ctrl-C.

    Schedules need a server: `prefect server start`, then
    `PREFECT_API_URL=http://127.0.0.1:4200/api wfm-sync serve`.
    """
    from flows.deployments import SchedulerConfigError, serve_deployments

    _setup_logging(False)
    try:
        serve_deployments(_schedules(cron, timezone, fold_every))
    except SchedulerConfigError as exc:
        err.print(f"[bold red]cannot serve:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(code=2) from None


@app.command()
def deploy(
    work_pool: Annotated[str, typer.Option(help="Prefect work pool (type process) to deploy to.")],
    cron: CronOption = "0 2 * * *",
    timezone: TimezoneOption = "UTC",
    fold_every: FoldEveryOption = 300,
) -> None:
    """Register both deployments on a work pool, for `prefect worker start --pool NAME`
    processes on any machine with this project installed (see README, Scaling out)."""
    from flows.deployments import SchedulerConfigError, deploy_to_work_pool

    _setup_logging(False)
    try:
        names = deploy_to_work_pool(_schedules(cron, timezone, fold_every), work_pool)
    except SchedulerConfigError as exc:
        err.print(f"[bold red]cannot deploy:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(code=2) from None
    console.print(f"deployed {', '.join(names)} to work pool {work_pool}")


@app.command()
def status(
    json_: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    max_age: Annotated[
        str,
        typer.Option(
            envvar="WFM_SYNC_MAX_AGE",
            help="API tables and the sync/models/publish jobs are stale after this (e.g. 26h).",
        ),
    ] = "26h",
    fold_max_age: Annotated[
        str,
        typer.Option(
            envvar="WFM_SYNC_FOLD_MAX_AGE",
            help="The webhook fold is stale after this (e.g. 1h), once webhooks are in use.",
        ),
    ] = "1h",
) -> None:
    """Show the last run of each job, rows and freshness per table, webhook freshness per
    family, inbox backlog and quarantine, pending load packages and the rate-limit budget left.

    Exits 1 when something is stale beyond the thresholds, a job's last run failed, or the sync
    never ran (so it can back an alert); 2 on a bad threshold.
    """
    import json

    from pipelines.status import collect_status, parse_age

    try:
        limits = parse_age(max_age), parse_age(fold_max_age)
    except ValueError as exc:
        err.print(f"[bold red]bad threshold:[/] {escape(str(exc))}")
        raise typer.Exit(code=2) from None
    report = collect_status(*limits)
    if json_:
        typer.echo(json.dumps(report.as_dict(), indent=2, default=str))
    else:
        print_status(report)
    if report.problems:
        raise typer.Exit(code=1)


def print_status(report: Any) -> None:
    """Print a :class:`pipelines.status.Status` as tables."""
    console.print(f"status at {report.checked_at}; warehouse {report.warehouse}")
    jobs = Table(title="jobs")
    for column in ("job", "last run (UTC)", "outcome", "seconds", "last success (UTC)", "stale"):
        jobs.add_column(column)
    for job in report.jobs:
        jobs.add_row(
            job.job, job.last_run_at or "never", job.outcome or "-",
            f"{job.duration_seconds:.1f}" if job.duration_seconds is not None else "-",
            job.last_success_at or "never", "[red]yes[/]" if job.stale else "no",
        )  # fmt: skip
    console.print(jobs)
    tables = Table(title="tables")
    for column in ("table", "rows", "newest provider time (UTC)", "refreshed (UTC)", "stale"):
        tables.add_column(column, justify="right" if column == "rows" else "left")
    for t in report.tables:
        tables.add_row(
            f"{t.dataset}.{t.table}", "-" if t.rows is None else f"{t.rows:,}", t.newest or "-",
            t.refreshed_at or "-", "[red]yes[/]" if t.stale else "no",
        )  # fmt: skip
    console.print(tables)
    if report.webhook_families:
        families = Table(title="webhook events")
        for column in ("family", "events", "newest event (UTC)"):
            families.add_column(column)
        for f in report.webhook_families:
            families.add_row(f.family, f"{f.events:,}", f.newest_event_at or "-")
        console.print(families)
    inbox = report.inbox
    console.print(
        f"inbox: backlog {inbox.get('backlog', '-')}, quarantine {inbox.get('quarantine', '-')}"
        + (f" ({inbox['error']})" if "error" in inbox else "")
    )
    if report.reconciliation:
        console.print(
            "time activities, API vs webhooks: "
            + ", ".join(f"{kind} {n}" for kind, n in report.reconciliation.items())
            + " (marts.fct_time_activity_reconciliation)"
        )
    if report.untypable_rows:
        console.print(
            "rows with provider values that could not be typed (left null; see each model's "
            "untypable_value_count): "
            + ", ".join(f"{model} {n:,}" for model, n in sorted(report.untypable_rows.items()))
        )
    if report.untyped_values:
        console.print(
            "values the last sync kept in untyped_values: "
            + ", ".join(f"{table} {n:,}" for table, n in sorted(report.untyped_values.items()))
        )
    pending = ", ".join(f"{name} {n}" for name, n in report.pending_load_packages.items())
    console.print(f"pending load packages: {pending or 'none'}")
    budget = report.rate_limit
    console.print(
        "rate-limit budget left at the last response: "
        + (
            f"minute {budget.get('minute', '-')}, day {budget.get('day', '-')} (at {budget['at']})"
            if budget
            else "unknown (no sync yet)"
        )
    )
    if report.problems:
        err.print("[bold red]problems:[/]")
        for problem in report.problems:
            err.print(f"  - {escape(problem)}", highlight=False)
    else:
        console.print("[green]healthy[/]")


@app.command()
def demo(
    users: Annotated[int, typer.Option(help="Users at the emulator.")] = 3000,
    shifts: Annotated[int, typer.Option(help="V1 shift rows at the emulator.")] = 30000,
    warehouse: Annotated[
        str, typer.Option(help="DuckDB file of the demo.")
    ] = "data/demo/warehouse.duckdb",
    webhook_events: Annotated[int, typer.Option(help="Webhook events in the burst.")] = 2000,
) -> None:
    """Start the emulator, sync twice through nightly_sync, receive and fold a webhook burst,
    and show the warehouse."""
    _setup_logging(False)
    from flows.demo import run_demo

    try:
        with live_progress():
            run_demo(users, shifts, warehouse, console, webhook_events=webhook_events)
    except Exception as exc:  # noqa: BLE001
        _fail(exc, "demo")


def main() -> None:
    """Entry point of the ``wfm-sync`` console script."""
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
