"""What every ``wfm-sync`` command shares: the two consoles, logging set-up, the clean failure
message and exit code, and defaults taken from the settings."""

from __future__ import annotations

import logging
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from core import settings
from core.settings import in_project

if TYPE_CHECKING:
    from core.project import Project

console = Console(soft_wrap=True)
"""Standard output: what a command reports (tables, counts)."""
err = Console(stderr=True, soft_wrap=True)
"""Standard error: logs, the live display, errors."""


def setup_logging(verbose: bool) -> None:
    """Plain timestamped lines; on a terminal through rich, so they print above live progress.
    Without ``verbose``, dlt's records are one line each (:func:`first_line_only`)."""
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
    if not verbose:  # a warning or error is one line (dlt logs a traceback per job retry)
        logging.getLogger("dlt").addFilter(first_line_only)
        for handler in logging.getLogger().handlers:
            handler.addFilter(first_line_only)


def first_line_only(record: logging.LogRecord) -> bool:
    """A logging filter: a warning or error cut to its message's first line, without a
    traceback (``-v`` shows them whole)."""
    if record.levelno < logging.WARNING:
        return True
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a bad format string: logging's own handler reports it
        return True
    if record.exc_info or record.exc_text or "\n" in message:
        first = (message.strip().splitlines() or [""])[0]
        record.msg = first.split(" Traceback (most recent call last)")[0]
        record.args = None
        record.exc_info = None
        record.exc_text = None
    return True


AllowInsecureOption = Annotated[
    bool,
    typer.Option(
        "--allow-insecure",
        help="Accept a plain http:// SOURCES__CONNECTEAM__BASE_URL to a host other than this "
        "machine (the credentials then cross the network unencrypted).",
    ),
]
"""``--allow-insecure``, on every command that talks to the provider; without it a plain
``http://`` base URL must name this machine (loopback: the emulator)."""

EXIT_FAILED = 1
"""The run failed: the provider, the warehouse, a stream, a step."""
EXIT_CONFIGURATION = 2
"""Usage or configuration: an unknown option or name, a missing or malformed setting, refused
credentials, a host that cannot be reached, an unreachable Prefect API, an unwritable path."""


def configuration_error(exc: BaseException) -> BaseException | None:
    """The configuration error in ``exc``'s chain (``__cause__``/``__context__``), if any: a
    setting to fix, which retrying or running again cannot."""
    from dlt.common.configuration.exceptions import ConfigurationException

    from flows.deployments import SchedulerConfigError
    from flows.runner import cause_chain
    from inbox.url import InboxURLError
    from pipelines.warehouse import WarehouseConfigError
    from receiver import ReceiverConfigError
    from sources.connecteam.errors import ConnecteamAPIError, ConnecteamConfigError
    from sources.connecteam.registry import OAUTH_TOKEN_PATH

    kinds = (
        ConnecteamConfigError,
        ReceiverConfigError,
        SchedulerConfigError,
        ConfigurationException,
        InboxURLError,
        WarehouseConfigError,
    )
    for current in cause_chain(exc):
        if isinstance(current, kinds):
            return current
        if isinstance(current, ValidationError) and current.title == settings.Settings.__name__:
            return SettingError(settings_problems(current))
        if (
            isinstance(current, ConnecteamAPIError)
            and current.status is not None
            and (
                current.status in (401, 403)
                or (current.endpoint == OAUTH_TOKEN_PATH and 400 <= current.status < 500)
            )
        ):
            return current  # credentials refused, or a scope the credentials lack
    return None


def fail(exc: BaseException, what: str = "sync") -> NoReturn:
    """Print a one-paragraph error (no secrets; the traceback only with ``-v``, debug logging)
    and exit: 2 when it is a
    configuration error (:func:`configuration_error`), else 1. A full disk anywhere in the
    chain is one line naming the path and the space free (:func:`core.errors.disk_full`).

    The configuration error, else the provider's error
    (:func:`sources.connecteam.find_connecteam_error`), is shown when the exception chain holds
    one, else ``exc`` itself.

    Raises:
        typer.Exit: Always, with :data:`EXIT_CONFIGURATION` or :data:`EXIT_FAILED`.
    """
    from core.errors import DiskFull, disk_full
    from sources.connecteam import find_connecteam_error

    setting_error = configuration_error(exc)
    cause: BaseException = setting_error or find_connecteam_error(exc) or exc
    if logging.getLogger().isEnabledFor(logging.DEBUG):  # -v: the whole story first
        err.print("".join(traceback.format_exception(exc)), markup=False, highlight=False)
    full = disk_full(exc) if setting_error is None else None
    if full is not None:
        if full.path is None:  # a write that did not say where: the project's data folder
            full = DiskFull(str(_data_folder()))
        err.print(f"[bold red]{what} failed:[/] {escape(full.message())}", highlight=False)
        raise typer.Exit(code=EXIT_FAILED)
    err.print(
        f"[bold red]{what} failed:[/] {type(cause).__name__}: {escape(str(cause))}", highlight=False
    )
    raise typer.Exit(code=EXIT_CONFIGURATION if setting_error is not None else EXIT_FAILED)


def configured_project(what: str) -> Project:
    """The command's configuration, resolved once at its edge
    (:func:`sources.configuration.resolve`: the option ``--warehouse`` of ``wfm-sync`` when
    given, then the ``WFM_SYNC_*`` environment, dlt's ``.dlt/`` and ``SOURCES__CONNECTEAM__*``,
    ``WEBHOOKS__INBOX_URL``, the defaults; the run's instant) and passed to the jobs it runs.

    Raises:
        typer.Exit: A malformed setting or an unreadable warehouse setting (exit 2, one line
            naming it, via :func:`fail` with ``what`` as the failing step).
    """
    try:
        return _resolve_project()
    except Exception as exc:  # noqa: BLE001 - reported as a clean message and exit code
        fail(exc, what)


def _resolve_project() -> Project:
    """:func:`sources.configuration.resolve` with ``wfm-sync``'s ``--warehouse``, if given.

    Raises:
        Exception: What :func:`sources.configuration.resolve` raises for a malformed setting.
    """
    from typer.main import get_current_context

    from sources.configuration import resolve

    context = get_current_context(silent=True)
    options = (context.find_root().obj if context is not None else None) or {}
    warehouse = options.get("warehouse")
    return resolve(in_project(warehouse) if warehouse is not None else None)


def _data_folder() -> Path:
    """The folder of this command's warehouse (where dlt's load packages, the snapshot and the
    report are written too); the current folder when the project cannot be resolved."""
    try:
        return _resolve_project().warehouse.parent
    except Exception:  # noqa: BLE001 - only to name a folder in a message
        return Path.cwd()


class SettingError(ValueError):
    """A ``WFM_SYNC_*`` variable holds a value of the wrong kind; the message names each one,
    its value and what is wrong, on one line."""


def settings_problems(exc: ValidationError) -> str:
    """``exc`` (from reading :class:`core.settings.Settings`) as one line: ``WFM_SYNC_<NAME>=
    <value>: <what is wrong>`` per variable, ``; ``-separated."""
    problems = []
    for error in exc.errors():
        name = f"{settings.ENV_PREFIX}{str(error['loc'][0]).upper()}"
        message = str(error["msg"]).removeprefix("Value error, ")
        problems.append(message if name in message else f"{name}={error['input']!r}: {message}")
    return "; ".join(problems)


def setting(name: str) -> object:
    """The current value of :class:`core.settings.Settings` field ``name``, as an option's
    default (read when the command runs, so ``WFM_SYNC_<NAME>`` set in the environment counts).

    Raises:
        typer.BadParameter: A ``WFM_SYNC_*`` variable holds a value of the wrong kind (exit 2).
    """
    try:
        return getattr(settings.current(), name)
    except ValidationError as exc:
        raise typer.BadParameter(settings_problems(exc), param_hint="the environment") from None


def setting_default(name: str) -> str:
    """An option's ``[default: ...]`` text: the variable, then the built-in default."""
    field = settings.Settings.model_fields[name]
    return f"{settings.ENV_PREFIX}{name.upper()}, else {field.default}"
