"""``wfm-sync sync`` (the ``nightly_sync`` flow once) and ``wfm-sync status`` (health, for
alerts)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.markup import escape

from .live import live_progress
from .render import print_nightly
from .render_status import print_status
from .terminal import (
    EXIT_CONFIGURATION,
    EXIT_FAILED,
    AllowInsecureOption,
    configured_project,
    err,
    fail,
    setting,
    setting_default,
    setup_logging,
)

if TYPE_CHECKING:
    from flows.nightly import AccountsFailedError, NothingLoadedError


def sync(
    streams: Annotated[
        str,
        typer.Option(help="Comma-separated streams (default all; see docs/streams.md)."),
    ] = "all",
    steps: Annotated[
        str, typer.Option(help="Comma-separated steps: sync, fold, models, publish, report.")
    ] = "sync,fold,models,publish,report",
    accounts: Annotated[
        str,
        typer.Option(
            help="Comma-separated accounts to sync side by side (default all configured; "
            "see docs/accounts.md)."
        ),
    ] = "all",
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Debug logging.")] = False,
    allow_insecure: AllowInsecureOption = False,
) -> None:
    """Run the nightly_sync flow once: sync the API, fold webhooks, build models, publish, write
    the static report.

    Reads SOURCES__CONNECTEAM__API_KEY (or CLIENT_ID/CLIENT_SECRET), SOURCES__CONNECTEAM__BASE_URL,
    DESTINATION__DUCKDB__CREDENTIALS (default data/warehouse.duckdb) and WEBHOOKS__INBOX_URL from
    the environment or .dlt/. With WFM_SYNC_DESTINATION=postgres the raw tables and the models go
    to the database in DESTINATION__POSTGRES__CREDENTIALS, and publish and the report
    (DuckDB-only) are skipped with a note. Prints rows loaded per table, requests made and time
    taken; exits non-zero when any step fails (a failing data test is named, with sample rows).
    Several accounts ([sources.connecteam.accounts.<name>]) sync side by side, each into its own
    dataset; one that fails is named (exit 1) while the others load.
    """
    import time

    setup_logging(verbose)
    from flows.nightly import (
        STEPS,
        AccountsFailedError,
        NothingLoadedError,
        StreamsFailedError,
        nightly_sync,
    )
    from pipelines import STREAMS
    from sources.connecteam.config import client_config

    chosen = names_from(streams, STREAMS, "--streams", all_word="all")
    chosen_steps = names_from(steps, STEPS, "--steps")
    project = configured_project("sync")
    chosen_accounts = names_from(accounts, project.account_names, "--accounts", all_word="all")
    if "sync" in chosen_steps:
        for name in chosen_accounts:
            try:  # before any work (no file is made); the client checks again when it is built
                config = client_config(project.for_account(name).source.arguments())
                config.require_secure(allow_insecure)
                config.require_credentials()
            except Exception as exc:  # noqa: BLE001 - reported as a clean message and exit code
                fail(exc, f"sync of account {name}" if len(chosen_accounts) > 1 else "sync")
    started = time.monotonic()
    try:
        with live_progress():
            result = nightly_sync(
                streams=chosen,
                streams_label="all" if chosen == STREAMS else "+".join(chosen),
                steps=chosen_steps,
                source_options={"allow_insecure": True} if allow_insecure else None,
                accounts=chosen_accounts,
                project=project,
            )
    except AccountsFailedError as exc:
        accounts_failed(exc, time.monotonic() - started)
    except NothingLoadedError as exc:
        nothing_loaded(exc)
    except StreamsFailedError as exc:
        print_nightly(exc.result, time.monotonic() - started)
        print_failed_streams(exc.result.sync.failed_streams)
        err.print("the other streams loaded; run the sync again once the cause is fixed")
        raise typer.Exit(code=1) from None
    except Exception as exc:  # noqa: BLE001 - reported as a clean message and exit code
        fail(exc)
    print_nightly(result, time.monotonic() - started)


def nothing_loaded(exc: NothingLoadedError) -> NoReturn:
    """Report a run in which every stream failed: each stream and why (when they failed alike,
    naming one setting, only with ``-v``), then one line. Exit 2 when every failure names one
    setting (it is the setting that is wrong), else 1.

    Raises:
        typer.Exit: Always.
    """
    if exc.setting is None or logging.getLogger().isEnabledFor(logging.DEBUG):
        print_failed_streams(exc.result.sync.failed_streams)
    err.print(f"[bold red]sync failed:[/] {escape(str(exc))}", highlight=False)
    raise typer.Exit(code=EXIT_CONFIGURATION if exc.setting is not None else EXIT_FAILED)


def accounts_failed(exc: AccountsFailedError, wall_seconds: float) -> NoReturn:
    """Report a run in which some accounts' syncs failed: what the others did, then each
    failed account and why, then one line (exit 1).

    Raises:
        typer.Exit: Always.
    """
    if not exc.nothing_loaded:
        print_nightly(exc.result, wall_seconds)
    if exc.result.sync.failed_streams:
        print_failed_streams(exc.result.sync.failed_streams)
    err.print(f"[bold red]sync failed for {len(exc.result.failed_accounts)} account(s):[/]")
    for name, reason in exc.result.failed_accounts.items():
        err.print(f"  - {name}: {escape(reason)}", highlight=False)
    err.print(f"[bold red]sync failed:[/] {escape(str(exc))}", highlight=False)
    raise typer.Exit(code=EXIT_FAILED)


def print_failed_streams(failed: dict[str, str]) -> None:
    """``sync failed for N stream(s):`` and a line per stream with why."""
    err.print(f"[bold red]sync failed for {len(failed)} stream(s):[/]")
    for stream, reason in failed.items():
        err.print(f"  - {stream}: {escape(reason)}", highlight=False)


def names_from(
    text: str, choices: tuple[str, ...], option: str, all_word: str | None = None
) -> tuple[str, ...]:
    """The comma-separated names of ``text``, checked against ``choices`` before any work;
    ``all_word`` (or nothing) means every choice.

    Raises:
        typer.BadParameter: A name not in ``choices`` (exit 2; the message lists the choices).
    """
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    if all_word is not None and names in ((), (all_word,)):
        return choices
    unknown = [n for n in names if n not in choices]
    if unknown or not names:
        raise typer.BadParameter(
            f"unknown {', '.join(map(repr, unknown)) or 'empty list'}; choose from "
            + ", ".join(choices),
            param_hint=option,
        )
    return names


def status(
    *,
    json_: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
    max_age: Annotated[
        str,
        typer.Option(
            default_factory=lambda: setting("max_age"),
            show_default=setting_default("max_age"),
            help="API tables and the sync/models/publish jobs are stale after this (e.g. 26h).",
        ),
    ],
    fold_max_age: Annotated[
        str,
        typer.Option(
            default_factory=lambda: setting("fold_max_age"),
            show_default=setting_default("fold_max_age"),
            help="The webhook fold is stale after this (e.g. 1h), once webhooks are in use.",
        ),
    ],
) -> None:
    """Show the last run of each job, rows and freshness per table, webhook freshness per
    family, inbox backlog and quarantine, webhook deliveries refused in the last hour (by
    reason), pending load packages and the rate-limit budget left.

    Exits 1 when something is stale beyond the thresholds, a job's last run failed, the sync
    never ran, or a webhook delivery was refused since the last stored event (so it can back an
    alert); 2 on a bad threshold.
    """
    import json

    from pipelines.status import collect_status, parse_age

    try:
        limits = parse_age(max_age), parse_age(fold_max_age)
    except ValueError as exc:
        err.print(f"[bold red]bad threshold:[/] {escape(str(exc))}")
        raise typer.Exit(code=2) from None
    report = collect_status(*limits, project=configured_project("status"))
    if json_:
        typer.echo(json.dumps(report.as_dict(), indent=2, default=str))
    else:
        print_status(report)
    if report.problems:
        raise typer.Exit(code=1)
