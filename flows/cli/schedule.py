"""``wfm-sync serve`` and ``wfm-sync deploy``: the Prefect deployments of ``nightly_sync`` and
``fold_webhooks`` (:mod:`flows.deployments`), their schedules defaulting to the settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from .terminal import (
    AllowInsecureOption,
    configured_project,
    console,
    err,
    setting,
    setting_default,
    setup_logging,
)

if TYPE_CHECKING:
    from flows.deployments import Schedules

CronOption = Annotated[
    str,
    typer.Option(
        default_factory=lambda: setting("nightly_cron"),
        show_default=setting_default("nightly_cron"),
        help="Cron of nightly_sync.",
    ),
]
TimezoneOption = Annotated[
    str,
    typer.Option(
        default_factory=lambda: setting("timezone"),
        show_default=setting_default("timezone"),
        help="IANA timezone of the cron.",
    ),
]
FoldEveryOption = Annotated[
    int,
    typer.Option(
        default_factory=lambda: setting("fold_every"),
        show_default=setting_default("fold_every"),
        help="Seconds between fold_webhooks runs.",
    ),
]


def _schedules(cron: str, timezone: str, fold_every: int) -> Schedules:
    from flows.deployments import Schedules

    return Schedules(nightly_cron=cron, timezone=timezone, fold_every_seconds=fold_every)


def serve(
    cron: CronOption,
    timezone: TimezoneOption,
    fold_every: FoldEveryOption,
    allow_insecure: AllowInsecureOption = False,
) -> None:
    """Register the nightly_sync and fold_webhooks deployments on the Prefect server
    (PREFECT_API_URL) and run their scheduled runs in this process until Ctrl-C.

    Schedules need a server: `prefect server start`, then
    `PREFECT_API_URL=http://127.0.0.1:4200/api wfm-sync serve`.
    """
    from flows.deployments import SchedulerConfigError, serve_deployments

    setup_logging(False)
    try:
        serve_deployments(_schedules(cron, timezone, fold_every), allow_insecure)
    except SchedulerConfigError as exc:
        err.print(f"[bold red]cannot serve:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(code=2) from None


def deploy(
    work_pool: Annotated[str, typer.Option(help="Prefect work pool (type process) to deploy to.")],
    cron: CronOption,
    timezone: TimezoneOption,
    fold_every: FoldEveryOption,
    allow_insecure: AllowInsecureOption = False,
) -> None:
    """Register the deployments on a work pool, for `prefect worker start --pool NAME`
    processes on any machine with this project installed (see docs/scaling-out.md). With several
    accounts configured, one sync deployment per account too: the nightly run starts them all,
    and the pool's workers sync the accounts in parallel (docs/accounts.md)."""
    from flows.deployments import SchedulerConfigError, deploy_to_work_pool

    setup_logging(False)
    accounts = configured_project("deploy").account_names
    try:
        names = deploy_to_work_pool(
            _schedules(cron, timezone, fold_every), work_pool, allow_insecure=allow_insecure,
            accounts=accounts,
        )  # fmt: skip
    except SchedulerConfigError as exc:
        err.print(f"[bold red]cannot deploy:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(code=2) from None
    console.print(f"deployed {', '.join(names)} to work pool {work_pool}")
