"""``wfm-sync emulator``: serve the local stand-in of the provider (:mod:`emulator`), change its
data (``mutate``) and send it webhooks (``send-webhooks``); and how a webhook burst is printed.

With the demo (:mod:`flows.cli.demo`), the only part of the project that imports the emulator
(the import contracts in ``pyproject.toml`` hold it to that). The spec data mode (``--data
spec``) draws with the ``emulator`` extra (hypothesis, hypothesis-jsonschema); without it these
commands say what to install instead of failing with a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from core.progress import Progress

from .live import live_progress
from .terminal import console, err, setup_logging

if TYPE_CHECKING:
    from emulator.webhooks import SendReport


def send_counted(
    url: str,
    bodies: Sequence[tuple[bytes, str | None, str | None]],
    *,
    token: str | None = None,
    signing_secret: str | None = None,
    concurrency: int = 16,
) -> SendReport:
    """:func:`emulator.webhooks.send_burst`, counted as stream ``webhooks sent`` (a live line on
    a terminal, else log lines of ``emulator.webhooks``; the closing line either way)."""
    import asyncio

    from emulator.webhooks import send_burst

    progress = Progress(
        "webhooks sent", unit="requests", pages_unit="requests",
        logger=logging.getLogger("emulator.webhooks"),
    )  # fmt: skip
    report = asyncio.run(
        send_burst(
            url, bodies, token=token, signing_secret=signing_secret, concurrency=concurrency,
            on_progress=lambda _finished, _total: progress.page(1),
        )
    )  # fmt: skip
    progress.done()
    return report


def require_spec_generators(option: str) -> None:
    """Exit with code 2 and a message naming the install when the emulator's spec data mode
    (``option``, e.g. ``--data spec``) lacks its generators (the ``emulator`` extra:
    :func:`emulator.spec_schemas.missing_generators`; nothing of them is imported here).

    Raises:
        typer.Exit: A generator module is missing.
    """
    from emulator.spec_schemas import INSTALL_HINT, missing_generators

    missing = missing_generators()
    if missing:
        err.print(
            f"{option} draws from the provider's schemas with {' and '.join(missing)}, not "
            f"installed here: {INSTALL_HINT}",
            markup=False,
        )
        raise typer.Exit(code=2)


OPERATION_OPTIONS = ("time_clocks", "time_activities", "activity_days", "form_submissions",
                     "jobs", "time_off_requests", "task_boards", "tasks")  # fmt: skip
"""The options of ``wfm-sync emulator`` that size the operations data (:class:`OperationsConfig
<emulator.operations_data.OperationsConfig>` fields of the same names)."""
SERVER_OPTIONS = ("minute_limit", "day_limit", "window_seconds", "fault_rate", "paging_total",
                  "webhook_retries", "webhook_retry_seconds")  # fmt: skip
"""The options of ``wfm-sync emulator`` that are :class:`ServerOptions
<emulator.state.ServerOptions>` fields of the same names."""


def serve_emulator(params: dict[str, Any]) -> None:
    """Serve the emulator with the options of ``wfm-sync emulator`` (``params``: option name ->
    value, as the command's context holds them) until interrupted.

    Raises:
        typer.Exit: Code 2: ``--data spec`` without the emulator extra
            (:func:`require_spec_generators`), or the address cannot be bound (a taken port).
    """
    if params["data"] == "spec":
        require_spec_generators("--data spec")
    from emulator import EmulatorConfig, ServerOptions
    from emulator.operations_data import OperationsConfig
    from emulator.server import bind, serve

    operations = OperationsConfig(**{name: params[name] for name in OPERATION_OPTIONS})
    config = EmulatorConfig(
        seed=params["seed"], users=params["users"], forms=params["forms"],
        schedulers=params["schedulers"], shifts=params["shifts"], operations=operations,
        data=params["data"], spec_width=params["spec_width"],
    )  # fmt: skip
    options = ServerOptions(
        api_key=params["api_key"], latency=params["latency_ms"] / 1000,
        **{name: params[name] for name in SERVER_OPTIONS},
    )  # fmt: skip
    host, port = params["host"], params["port"]
    try:
        sock = bind(host, port)
    except OSError as error:
        err.print(
            f"emulator: cannot listen on {host}:{port}: {error.strerror or error} "
            "(is another emulator running there? choose another with --port)",
            soft_wrap=True,
        )
        raise typer.Exit(code=2) from None
    port = sock.getsockname()[1]  # --port 0: the one the system chose
    err.print(
        f"emulator on http://{host}:{port} ({config.users} users, {config.shifts} shift rows); "
        f"export SOURCES__CONNECTEAM__BASE_URL=http://{host}:{port} "
        "SOURCES__CONNECTEAM__API_KEY=<the --api-key>"
    )
    serve(config, options, sock)


app = typer.Typer(
    help="The local stand-in of the provider: serve it (default), change its data, send webhooks.",
    invoke_without_command=True,
)


@app.callback()
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
    latency_ms: Annotated[
        float,
        typer.Option(min=0.0, help="Milliseconds added to every API answer (a slow provider)."),
    ] = 0.0,
    fault_rate: Annotated[
        float, typer.Option(help="Fraction of requests answered 429/500/503 or dropped.")
    ] = 0.0,
    paging_total: Annotated[bool, typer.Option(help="Send paging.total in paged answers.")] = False,
    webhook_retries: Annotated[
        int, typer.Option(help="Deliveries retried after a failed webhook delivery.")
    ] = 3,
    webhook_retry_seconds: Annotated[
        float, typer.Option(help="Seconds between webhook deliveries of one event.")
    ] = 60.0,
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
    (`mutate`) or send webhooks (`send-webhooks`). `--data spec` needs the emulator extra
    (`pip install 'wfm-sync[emulator]'`, or `make install`).
    """
    if ctx.invoked_subcommand is None:
        serve_emulator(ctx.params)


@app.command("mutate")
def emulator_mutate(
    url: Annotated[str, typer.Option(help="The emulator's base URL.")] = "http://127.0.0.1:8765",
    users: Annotated[int, typer.Option(help="Users to edit.")] = 10,
    shifts: Annotated[int, typer.Option(help="Shift rows to edit.")] = 10,
    delete_shifts: Annotated[int, typer.Option(help="Shift rows to delete.")] = 0,
    new_shifts: Annotated[int, typer.Option(help="Shift rows to add.")] = 0,
    move_shifts: Annotated[int, typer.Option(help="Future shifts to move 2 hours later.")] = 0,
    reassign_shifts: Annotated[
        int, typer.Option(help="Future single-user slots to give to another user.")
    ] = 0,
    add_shift_users: Annotated[
        int, typer.Option(help="Future shifts to add an assigned user to.")
    ] = 0,
    unassign_shift_users: Annotated[
        int, typer.Option(help="Future multi-user shifts to take one user off.")
    ] = 0,
    edit_submissions: Annotated[int, typer.Option(help="Newest form submissions to edit.")] = 0,
) -> None:
    """Change records at a running emulator, so the next sync has something to pick up; the
    subscribed webhooks (`wfm-sync webhooks subscribe`) receive the changes' events."""
    import httpx

    body = {
        "users": users, "shifts": shifts, "delete_shifts": delete_shifts,
        "new_shifts": new_shifts, "move_shifts": move_shifts, "reassign_shifts": reassign_shifts,
        "add_shift_users": add_shift_users, "unassign_shift_users": unassign_shift_users,
        "edit_submissions": edit_submissions,
    }  # fmt: skip
    response = httpx.post(f"{url.rstrip('/')}/_emulator/mutate", json=body, timeout=60)
    response.raise_for_status()
    touched = response.json()
    console.print({k: len(v) if isinstance(v, list) else v for k, v in touched.items()})


@app.command("send-webhooks")
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
    """POST provider-like webhook events (every catalogued type, V1 and V2 shifts) to a receiver.
    `--data spec` needs the emulator extra (`pip install 'wfm-sync[emulator]'`, or `make
    install`)."""
    from emulator.webhooks import build_burst

    chosen = [f.strip() for f in families.split(",") if f.strip()] or None
    if data not in {"emulator", "spec"}:
        raise typer.BadParameter(f"{data!r}: choose 'emulator' or 'spec'", param_hint="--data")
    if data == "spec":
        require_spec_generators("--data spec")
    bodies = build_burst(
        events, seed=seed, families=chosen, duplicate_rate=duplicate_rate,
        malformed_rate=malformed_rate, data=data,
    )  # fmt: skip
    setup_logging(False)
    with live_progress():
        report = send_counted(
            url,
            bodies,
            token=token or None,
            signing_secret=signing_secret or None,
            concurrency=concurrency,
        )
    print_burst(report)
    if report.statuses.get(0) or any(s >= 500 for s in report.statuses):
        raise typer.Exit(code=1)


def print_burst(report: SendReport) -> None:
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
