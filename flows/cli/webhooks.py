"""``wfm-sync webhooks``: register the receiver at the provider (``subscribe``, ``list``,
``unsubscribe``), receive the provider's webhooks (``serve``) and fold them into the warehouse
(``fold``, the ``fold_webhooks`` flow once)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from core.project import DEFAULT_ACCOUNT
from core.settings import FOLD_RETENTION_DAYS

from .live import live_progress
from .render import print_fold
from .terminal import AllowInsecureOption, configured_project, console, err, fail, setup_logging

app = typer.Typer(
    help="Subscribe the receiver at the provider, receive the webhooks, fold them into the "
    "warehouse."
)

FEATURES_HELP = (
    "Feature types to subscribe, comma-separated (default: all the models read: users, forms, "
    "time_activity, tasks, shift_scheduler, chat)."
)


def _features(value: str) -> list[str]:
    from inbox.events import FEATURE_FAMILIES

    return [f.strip() for f in value.split(",") if f.strip()] or list(FEATURE_FAMILIES)


def print_steps(
    steps: list[Any], url: str | None, dry_run: bool = False, out: Console = console
) -> None:
    """The subscription plan or its outcome as a table on ``out`` (the URL's token shown as
    ***)."""
    from rich.table import Table

    from pipelines.subscriptions import redact

    if url is not None:
        out.print(f"receiver URL: {redact(url)}", highlight=False)
    table = Table(
        title="webhook subscriptions" + (" (dry run: nothing written)" if dry_run else "")
    )
    table.add_column("action")
    table.add_column("name", no_wrap=True)
    table.add_column("events", justify="right")
    table.add_column("version", justify="right")
    table.add_column("changes")
    for step in steps:
        source = step.wanted
        existing = step.existing or {}
        table.add_row(
            step.action,
            step.name,
            str(len(source.event_types) if source else len(existing.get("eventTypes") or [])),
            str(source.webhook_version if source else existing.get("webhookVersion", 1)),
            ", ".join(step.changes),
        )
    out.print(table)


def _text(value: object) -> str | None:
    """A setting's value as text, ``None`` when unset or empty."""
    return str(value) if value else None


AccountOption = Annotated[
    str,
    typer.Option(
        "--account",
        help="The Connecteam account whose subscriptions these are (default: the account of "
        "[sources.connecteam]; a named one: [sources.connecteam.accounts.<name>], its token "
        "WEBHOOKS__ACCOUNTS__<NAME>__TOKEN; see docs/webhooks.md#several-accounts).",
    ),
]


def _subscription_client(allow_insecure: bool, account: str = DEFAULT_ACCOUNT) -> Any:
    """A client of ``account`` (its configuration resolved here, the command's edge) asking
    for the webhook scopes.

    Raises:
        ConnecteamConfigError: ``account`` is not configured (the message lists those that
            are).
    """
    from sources.connecteam import ConnecteamConfigError
    from sources.connecteam.config import client_from_config
    from sources.connecteam.webhook_settings import SUBSCRIPTION_SCOPES

    project = configured_project("webhooks")
    try:
        arguments = project.for_account(account).source.arguments()
    except KeyError as exc:  # a setting to fix: exit 2
        raise ConnecteamConfigError(f"--account: {exc.args[0]}") from None
    return client_from_config(arguments, SUBSCRIPTION_SCOPES, allow_insecure=allow_insecure)


@app.command("subscribe")
def webhooks_subscribe(
    url: Annotated[
        str,
        typer.Option(
            help="The receiver's public https URL, e.g. https://host/webhooks/connecteam."
        ),
    ],
    features: Annotated[str, typer.Option(help=FEATURES_HELP)] = "",
    shift_version: Annotated[
        int,
        typer.Option(help="Shift webhook payload version: 1 (per assignment) or 2 (per shift)."),
    ] = 1,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan; write nothing.")
    ] = False,
    rotate_secret: Annotated[
        bool,
        typer.Option(
            "--rotate-secret",
            help="Rotate the token and secret: send WEBHOOKS__TOKEN and WEBHOOKS__SIGNING_SECRET "
            "to every subscription, even those that match. Needs WEBHOOKS__PREVIOUS_TOKEN (and/or "
            "WEBHOOKS__PREVIOUS_SIGNING_SECRET) set to the old value on the receiver first, so "
            "both are accepted until the new one has been seen and the old one has gone unused "
            "for WEBHOOKS__ROTATION_GRACE_SECONDS.",
        ),
    ] = False,
    allow_insecure: AllowInsecureOption = False,
    account: AccountOption = DEFAULT_ACCOUNT,
) -> None:
    """Create or update the provider's webhook subscriptions wfm-sync needs (one per feature type,
    and per time clock and scheduler where the provider scopes them), named wfm-sync:...; a
    second run writes nothing. With --features, wfm-sync's subscriptions of other feature types
    are left alone. The URL gets the receiver token (WEBHOOKS__TOKEN) in its query;
    WEBHOOKS__SIGNING_SECRET, when set, becomes each webhook's secretKey.

    To rotate them: on the receiver set WEBHOOKS__PREVIOUS_TOKEN to the old token and
    WEBHOOKS__TOKEN to the new one (likewise WEBHOOKS__PREVIOUS_SIGNING_SECRET and
    WEBHOOKS__SIGNING_SECRET), restart it, then run subscribe --rotate-secret with the same
    settings; the receiver accepts the old ones until it has seen the new ones and the old ones
    have gone unused for WEBHOOKS__ROTATION_GRACE_SECONDS.

    With --account NAME, the subscriptions of that account, with its own token
    (WEBHOOKS__ACCOUNTS__<NAME>__TOKEN) and signing secret, at its own URL (the receiver's
    /webhooks/connecteam/<name>)."""
    from pipelines.subscriptions import SubscriptionError, apply, current, plan, receiver_url

    setup_logging(False)
    config = _subscribe_configuration(account)
    if rotate_secret and account != DEFAULT_ACCOUNT:
        err.print(
            "[bold red]cannot subscribe:[/] --rotate-secret rotates the default account's token; "
            f"for account {account}, set its new WEBHOOKS__ACCOUNTS__{account.upper()}__TOKEN on "
            "the receiver and run subscribe --account again",
            highlight=False,
        )
        raise typer.Exit(code=2)
    try:
        rotation = _rotation(config) if rotate_secret else []  # checked before anything is sent
        full_url = receiver_url(url, str(config.token))
        with _subscription_client(allow_insecure, account) as client:
            chosen = _features(features)
            wanted, registered = current(client, chosen, shift_version)
            only = chosen if features.strip() else None
            steps = plan(wanted, registered, full_url, only_features=only,
                         rotate_secret=rotate_secret)  # fmt: skip
            outcome = None if dry_run else apply(client, steps, full_url,
                                                 config.signing_secret or None)  # fmt: skip
    except SubscriptionError as exc:
        err.print(f"[bold red]cannot subscribe:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(code=2) from None
    except Exception as exc:  # noqa: BLE001
        fail(exc, "subscribe")
    _print_subscribed(steps, full_url, outcome, rotation)


def _subscribe_configuration(account: str = DEFAULT_ACCOUNT) -> Any:
    """The ``[webhooks]`` settings ``subscribe`` needs (a named ``account``'s token and signing
    secret in place of ``WEBHOOKS__TOKEN`` and ``WEBHOOKS__SIGNING_SECRET``); exits 2 with one
    line when a value has the wrong kind or the token is unset."""
    from dlt.common.configuration.exceptions import ConfigValueCannotBeCoercedException

    from inbox.url import InboxURLError
    from sources.webhooks.config import coercion_problem, webhook_accounts, webhooks_configuration

    try:
        config = webhooks_configuration()
    except (ConfigValueCannotBeCoercedException, InboxURLError) as exc:
        problem = coercion_problem(exc) if not isinstance(exc, InboxURLError) else str(exc)
        err.print(f"[bold red]cannot subscribe:[/] {escape(problem)}", highlight=False)
        raise typer.Exit(code=2) from None
    if account != DEFAULT_ACCOUNT:
        token, secret = webhook_accounts().get(account, (None, None))
        if not token:
            err.print(
                f"[bold red]cannot subscribe:[/] no webhook token for account {account}: set "
                f"WEBHOOKS__ACCOUNTS__{account.upper()}__TOKEN (the receiver checks it on every "
                f"delivery to /webhooks/connecteam/{account})",
                highlight=False,
            )
            raise typer.Exit(code=2)
        config.token, config.signing_secret = token, secret
        return config
    if not config.token:
        err.print(
            "[bold red]cannot subscribe:[/] no webhook token: set WEBHOOKS__TOKEN (the receiver "
            "checks it on every delivery)",
            highlight=False,
        )
        raise typer.Exit(code=2)
    return config


def _rotation(config: Any) -> list[str]:
    """What follows ``--rotate-secret``, in words (:func:`pipelines.subscriptions.rotation_steps`).

    Raises:
        pipelines.subscriptions.SubscriptionError: No rotation is under way on the receiver.
    """
    from pipelines.subscriptions import rotation_steps

    return rotation_steps(
        _text(config.token),
        _text(config.previous_token),
        _text(config.signing_secret),
        _text(config.previous_signing_secret),
        config.rotation_grace_seconds,
    )


def _print_subscribed(steps: list[Any], full_url: str, outcome: Any, rotation: list[str]) -> None:
    """The plan (``outcome`` ``None``: a dry run) or what was written, then the rotation's
    steps."""
    dry_run = outcome is None
    print_steps(steps, full_url, dry_run)
    if not dry_run:
        written = outcome.written
        console.print(
            f"created {written['create']}, updated {written['update']}, deleted "
            f"{written['delete']}, unchanged {sum(s.action == 'keep' for s in steps)}"
        )
    if rotation:
        console.print("rotation, once run without --dry-run:" if dry_run else "rotation:")
    for number, line in enumerate(rotation, 1):
        console.print(f"  {number}. {line}", highlight=False)


@app.command("list")
def webhooks_list(
    features: Annotated[str, typer.Option(help=FEATURES_HELP)] = "",
    shift_version: Annotated[int, typer.Option(help="Shift webhook version expected.")] = 1,
    allow_insecure: AllowInsecureOption = False,
    account: AccountOption = DEFAULT_ACCOUNT,
) -> None:
    """Show the provider's webhook subscriptions: wfm-sync's own (kept, outdated or no longer
    needed), those missing, and others' (never touched)."""
    from rich.table import Table

    from pipelines.subscriptions import SubscriptionError, current, is_ours, plan, redact

    setup_logging(False)
    try:
        chosen = _features(features)
        with _subscription_client(allow_insecure, account) as client:
            wanted, registered = current(client, chosen, shift_version)
        steps = plan(wanted, registered, None, only_features=chosen if features.strip() else None)
    except SubscriptionError as exc:
        err.print(f"[bold red]cannot list:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(code=2) from None
    except Exception as exc:  # noqa: BLE001
        fail(exc, "list")
    labels = {"keep": "subscribed", "update": "outdated", "create": "missing",
              "delete": "not needed"}  # fmt: skip
    table = Table(title="webhook subscriptions at the provider")
    table.add_column("status")
    table.add_column("id", justify="right")
    table.add_column("name", no_wrap=True)
    table.add_column("feature type")
    table.add_column("url (token: ***)")
    for step in steps:
        hook = step.existing or {}
        feature = step.wanted.feature_type if step.wanted else str(hook.get("featureType", ""))
        table.add_row(labels[step.action], str(hook.get("id", "")), step.name, feature,
                      redact(str(hook.get("url", ""))))  # fmt: skip
    for hook in registered:
        if isinstance(hook, dict) and not is_ours(hook):
            cells = [str(hook.get(k, "")) for k in ("id", "name", "featureType")]
            table.add_row("not ours", *cells, redact(str(hook.get("url", ""))))
    console.print(table)
    missing = sum(s.action == "create" for s in steps)
    console.print(
        f"{missing} missing" + (": run `wfm-sync webhooks subscribe --url ...`" if missing else "")
    )


@app.command("unsubscribe")
def webhooks_unsubscribe(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan; write nothing.")
    ] = False,
    allow_insecure: AllowInsecureOption = False,
    account: AccountOption = DEFAULT_ACCOUNT,
) -> None:
    """Delete wfm-sync's own webhook subscriptions (named wfm-sync:...) and no other (of
    --account's account)."""
    from pipelines.subscriptions import apply, unsubscribe_plan
    from sources.connecteam.webhook_settings import list_webhooks

    setup_logging(False)
    try:
        with _subscription_client(allow_insecure, account) as client:
            steps = unsubscribe_plan(list_webhooks(client))
            if not dry_run:
                apply(client, steps, "", None)
    except Exception as exc:  # noqa: BLE001
        fail(exc, "unsubscribe")
    print_steps(steps, None, dry_run)
    console.print(f"{'would delete' if dry_run else 'deleted'} {len(steps)}")


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
    deadline: Annotated[
        float | None,
        typer.Option(
            help="Seconds within which every delivery is answered; one not committed by then "
            "gets 503 and is not stored (default WEBHOOKS__DEADLINE_SECONDS, 10; at most 20)."
        ),
    ] = None,
    queue_size: Annotated[
        int | None,
        typer.Option(
            help="Deliveries that may wait for the inbox writer; beyond, 503 at once (default "
            "WEBHOOKS__QUEUE_SIZE, 1000)."
        ),
    ] = None,
) -> None:
    """Receive the provider's webhooks on POST /webhooks/connecteam (GET /healthz for checks).

    Needs WEBHOOKS__TOKEN (or [webhooks] token in .dlt/secrets.toml) unless --open; the provider
    can be given the URL with ?token=... . Each event is committed to the inbox before the 200,
    within the deadline. If the inbox writer thread dies the process exits with code 1, for its
    supervisor to restart it; `kill -USR2 <pid>` makes it die, to try that.
    """
    from .receiving import serve

    setup_logging(False)
    serve(host, port, inbox_url, open_, deadline, queue_size)


@app.command("fold")
def webhooks_fold(
    batch_size: Annotated[int, typer.Option(help="Inbox rows per batch.")] = 100_000,
    retention_days: Annotated[
        float, typer.Option(help="Days folded inbox rows are kept before pruning.")
    ] = FOLD_RETENTION_DAYS,
    models: Annotated[
        bool,
        typer.Option(
            "--models/--no-models",
            help="Also rebuild the models that read webhooks (fct_shifts, ...) and publish.",
        ),
    ] = False,
) -> None:
    """Run the fold_webhooks flow once: load received events into webhooks.events (with
    --models, then rebuild the models that read them and publish the snapshot)."""
    import time

    setup_logging(False)
    from flows.fold import fold_webhooks
    from inbox.url import check_inbox_url

    project = configured_project("fold")
    try:
        check_inbox_url(project.webhooks.url)  # before any work: a bad setting exits 2 at once
    except Exception as exc:  # noqa: BLE001
        fail(exc, "fold")
    started = time.monotonic()
    try:
        with live_progress():
            summary = fold_webhooks(
                batch_size=batch_size, retention_days=retention_days, models=models,
                project=project,
            )  # fmt: skip
    except Exception as exc:  # noqa: BLE001
        fail(exc, "fold")
    print_fold(summary, time.monotonic() - started)
