"""``wfm-sync webhooks``: receive the provider's webhooks (``serve``) and fold them into the
warehouse (``fold``, the ``fold_webhooks`` flow once)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from .live import live_progress
from .render import print_fold
from .terminal import err, fail, setup_logging

app = typer.Typer(help="Receive the provider's webhooks and fold them into the warehouse.")


@app.command("serve")
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

    from receiver import ReceiverConfigError, create_app, settings_from_config

    setup_logging(False)
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


@app.command("fold")
def webhooks_fold(
    batch_size: Annotated[int, typer.Option(help="Inbox rows per batch.")] = 100_000,
    retention_days: Annotated[
        float, typer.Option(help="Days folded inbox rows are kept before pruning.")
    ] = 7.0,
) -> None:
    """Run the fold_webhooks flow once: load received events into webhooks.events."""
    import time

    setup_logging(False)
    from flows.fold import fold_webhooks
    from flows.runner import run_flow

    started = time.monotonic()
    try:
        with live_progress():
            summary = run_flow(fold_webhooks, batch_size=batch_size, retention_days=retention_days)
    except Exception as exc:  # noqa: BLE001
        fail(exc, "fold")
    print_fold(summary, time.monotonic() - started)
