"""``wfm-sync webhooks serve``'s work: the receiver's settings and inbox checked before it says
"receiving" (a wrong one: one line, exit 2), then uvicorn run until stopped (exit 1 when the
inbox writer died, for the supervisor to restart it)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NoReturn

import typer
from rich.markup import escape

from .terminal import EXIT_CONFIGURATION, EXIT_FAILED, err


def serve(
    host: str,
    port: int,
    inbox_url: str,
    open_: bool,
    deadline: float | None,
    queue_size: int | None,
) -> None:
    """Run the receiver on ``host``:``port`` until it is stopped (SIGINT, SIGTERM).

    Args:
        host, port: Where to listen.
        inbox_url: ``--inbox-url`` (empty: ``WEBHOOKS__INBOX_URL``).
        open_: ``--open``: accept requests without a token.
        deadline, queue_size: ``--deadline``, ``--queue-size`` (``None``: the settings').

    Raises:
        typer.Exit: 2 when a setting is wrong or the inbox cannot be opened (one line on stderr
            naming the setting); 1 when the inbox writer died or the server did not start.
    """
    import gc
    import signal

    import uvicorn

    from receiver.connections import RESERVED_FILES, bounded_protocol, raise_file_limit

    inbox_setting = "--inbox-url" if inbox_url else "WEBHOOKS__INBOX_URL"
    settings = _receiver_settings(inbox_url, open_, deadline, queue_size)
    died: list[BaseException] = []

    def writer_died(exc: BaseException) -> None:
        died.append(exc)
        server.should_exit = True  # a graceful stop: waiting requests are answered 503

    limit = raise_file_limit()  # before the app derives its connection cap from it
    receiver = _open_receiver(settings, inbox_setting, writer_died)
    bounds = receiver.state.bounds
    if bounds.max_connections > limit - RESERVED_FILES:
        err.print(
            f"[yellow]WEBHOOKS__MAX_CONNECTIONS={bounds.max_connections} is over what the "
            f"open-file limit ({limit}) leaves; past about {limit - RESERVED_FILES} "
            "connections, new ones fail to be accepted[/]"
        )
    # No access log: a sender may put the token in the query string. Connections bounded
    # (receiver.connections): a cap, a request head within seconds, idle keep-alives closed.
    server = uvicorn.Server(uvicorn.Config(
        receiver, host=host, port=port, log_level="warning", access_log=False,
        timeout_graceful_shutdown=math.ceil(2 * settings.deadline_seconds),
        http=bounded_protocol(bounds), timeout_keep_alive=math.ceil(bounds.keep_alive),
        backlog=min(2048, bounds.max_connections),
    ))  # fmt: skip
    signal.signal(signal.SIGUSR2, lambda *_: receiver.state.writer.inject_fault())
    err.print(
        f"receiving on http://{host}:{port}/webhooks/connecteam, inbox "
        f"{receiver.state.inbox.describe()}, at most {bounds.max_connections} connections"
        + (" [bold yellow](open: no token checked)[/]" if settings.token is None else "")
    )
    # The objects of start-up (modules, the app) out of the collector's way: every full
    # collection under load would walk them again (12-19 % of the receiver's throughput).
    gc.collect()
    gc.freeze()
    server.run()
    if died:
        err.print(
            f"[bold red]stopped:[/] the inbox writer died ({escape(repr(died[0]))}); exit 1 so "
            "that the supervisor restarts the receiver",
            highlight=False,
        )
        raise typer.Exit(code=EXIT_FAILED)
    if not server.started:
        raise typer.Exit(code=EXIT_FAILED)  # uvicorn logged why (the port taken, say)


def _cannot_start(problem: str) -> NoReturn:
    err.print(f"[bold red]cannot start:[/] {escape(problem)}", highlight=False)
    raise typer.Exit(code=EXIT_CONFIGURATION)


def receiver_config_from_dlt(
    inbox_url: str | None = None,
    allow_open: bool = False,
    deadline_seconds: float | None = None,
    queue_size: int | None = None,
) -> Any:
    """The receiver's configuration from dlt's ``[webhooks]`` section (empty values count as
    unset; ``inbox_url`` and ``max_body_bytes`` then take their defaults,
    ``sqlite:///data/inbox.sqlite3`` and 1 MiB), each named account's token and signing secret
    from ``[webhooks.accounts.<name>]`` (:func:`sources.webhooks.config.webhook_accounts`).

    Args:
        inbox_url: Overrides ``WEBHOOKS__INBOX_URL`` when given.
        allow_open: Accept requests without a token.
        deadline_seconds: Overrides ``WEBHOOKS__DEADLINE_SECONDS`` when given.
        queue_size: Overrides ``WEBHOOKS__QUEUE_SIZE`` when given.

    Raises:
        ReceiverConfigError: As :class:`ReceiverConfig`, a setting of the wrong kind (e.g.
            ``WEBHOOKS__QUEUE_SIZE=lots``; the message names it), or the inbox URL is not usable
            (:func:`inbox.url.check_inbox_url`).
    """
    from dlt.common.configuration.exceptions import ConfigValueCannotBeCoercedException

    from inbox.defaults import DEFAULT_INBOX_URL, MAX_BODY_BYTES
    from inbox.url import InboxURLError, check_inbox_url
    from receiver import ReceiverConfig, ReceiverConfigError
    from receiver.config import AccountAuth
    from sources.webhooks.config import coercion_problem, webhook_accounts, webhooks_configuration

    try:
        config = webhooks_configuration()
    except ConfigValueCannotBeCoercedException as exc:
        raise ReceiverConfigError(coercion_problem(exc)) from None
    except InboxURLError as exc:
        raise ReceiverConfigError(str(exc)) from None
    url = inbox_url or config.inbox_url or DEFAULT_INBOX_URL
    try:
        url = check_inbox_url(url, "--inbox-url" if inbox_url else "WEBHOOKS__INBOX_URL")
    except InboxURLError as exc:
        raise ReceiverConfigError(str(exc)) from None
    return ReceiverConfig(
        token=config.token or None,
        signing_secret=config.signing_secret or None,
        inbox_url=url,
        max_body_bytes=config.max_body_bytes or MAX_BODY_BYTES,
        allow_open=allow_open,
        previous_token=config.previous_token or None,
        previous_signing_secret=config.previous_signing_secret or None,
        signature_mode=(config.signature_mode or "enforce").strip().lower(),
        rotation_grace_seconds=config.rotation_grace_seconds,
        deadline_seconds=config.deadline_seconds if deadline_seconds is None else deadline_seconds,
        queue_size=config.queue_size if queue_size is None else queue_size,
        quarantine_max_bytes=config.quarantine_max_bytes,
        max_connections=config.max_connections,
        accounts={
            name: AccountAuth(token or "", secret)
            for name, (token, secret) in webhook_accounts().items()
        },
    )


def _receiver_settings(
    inbox_url: str, open_: bool, deadline: float | None, queue_size: int | None
) -> Any:
    """The receiver's configuration (:func:`receiver_config_from_dlt`); exits 2 with one line
    naming the setting when one is wrong (a value of the wrong kind included)."""
    from receiver import ReceiverConfigError

    try:
        return receiver_config_from_dlt(
            inbox_url or None, allow_open=open_, deadline_seconds=deadline, queue_size=queue_size
        )
    except ReceiverConfigError as exc:
        _cannot_start(str(exc))


def _open_receiver(
    settings: Any, inbox_setting: str, on_writer_death: Callable[[BaseException], None]
) -> Any:
    """The receiver application (:func:`receiver.create_app`); exits 2 with one line when its
    inbox cannot be opened (unreachable, credentials refused), naming ``inbox_setting`` and the
    inbox's URL with its password hidden."""
    import sqlalchemy as sa

    from receiver import create_app

    try:
        return create_app(settings, on_writer_death=on_writer_death)
    except sa.exc.DBAPIError as exc:
        url = sa.engine.make_url(settings.inbox_url)
        why = (str(exc.orig).strip().splitlines() or [type(exc.orig).__name__])[0]
        if url.password:
            why = why.replace(str(url.password), "***")
        _cannot_start(
            f"the inbox {url.render_as_string(hide_password=True)} ({inbox_setting}) cannot be "
            f"opened: {why}; check that the database is up and the URL's user and password"
        )
