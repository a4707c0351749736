"""``wfm-sync demo``: the whole product on one laptop, with no provider account.

Starts the emulator and the webhook receiver on free loopback ports, sends the receiver a burst of
provider-like webhook events, subscribes the receiver at the emulator (``webhooks subscribe``,
version 2 shift webhooks), runs ``nightly_sync`` (sync -> fold -> models -> publish), changes
records at the emulator during the day (the emulator delivers their events to the receiver),
folds them and rebuilds the models (a moved shift shows in ``fct_shifts`` before the next sync),
runs ``nightly_sync`` again to show the incremental pick-up, then prints per-table counts, the
paths, example queries with their answers and a few lines of the marts from the published
snapshot.
"""

from __future__ import annotations

import json
import secrets
import shutil
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from core import settings
from core.paths import paths_beside
from core.project import Project
from emulator.config import DEMO_SHIFTS, DEMO_USERS, demo_config

from .live import live_progress
from .render import print_fold, print_nightly
from .terminal import console as stdout
from .terminal import fail, setup_logging

if TYPE_CHECKING:
    from emulator import EmulatorServer

DAY_CHANGES: dict[str, object] = {
    "users": 25, "shifts": 40, "delete_shifts": 5, "new_shifts": 10, "move_shifts": 1,
    "reassign_shifts": 1, "add_shift_users": 1, "unassign_shift_users": 1, "edit_submissions": 2,
}  # fmt: skip
"""What changes at the emulator between the two runs (``Dataset.mutate``'s arguments)."""
BURST_FAMILIES = ("user", "timesheet_period", "chat", "shift", "task", "form", "availability")
"""The families of the demo's drawn bursts: every one but ``time_activity``. Drawn punches are
for no assignment (random users and times), so they would fill the attendance mart with
unscheduled punches nobody made; the punches' events are those of the emulator's own activities
(:func:`emulator.webhooks.activity_events`)."""


def demo(
    users: Annotated[int, typer.Option(help="Users at the emulator.")] = DEMO_USERS,
    shifts: Annotated[int, typer.Option(help="V1 shift rows at the emulator.")] = DEMO_SHIFTS,
    warehouse: Annotated[
        str, typer.Option(help="DuckDB file of the demo.")
    ] = "data/demo/warehouse.duckdb",
    webhook_events: Annotated[int, typer.Option(help="Webhook events in the burst.")] = 2000,
) -> None:
    """Start the emulator, sync twice through nightly_sync, receive and fold a webhook burst,
    and show the warehouse."""
    setup_logging(False)
    try:
        with live_progress():
            run_demo(users, shifts, warehouse, stdout, webhook_events=webhook_events)
    except Exception as exc:  # noqa: BLE001
        fail(exc, "demo")


@dataclass(frozen=True)
class DemoSetup:
    """What the demo's steps share.

    Attributes:
        project: What every job of the demo is given: its files (warehouse, snapshot, report,
            ...) all in its own folder, the emulator's account, the receiver's inbox, the
            currency.
        inbox_url: The receiver's inbox (SQLite beside the warehouse).
        token: The receiver's webhook token.
        user_ids: The emulator's user ids (bursts name them).
        webhook_events: Distinct events in the first burst.
    """

    project: Project
    inbox_url: str
    token: str
    user_ids: list[int]
    webhook_events: int


def run_demo(
    users: int, shifts: int, warehouse: str, console: Console, webhook_events: int = 2000
) -> None:
    """Run the demo; prints everything it does to ``console``.

    Args:
        users: Users at the emulator.
        shifts: V1 shift rows at the emulator.
        warehouse: DuckDB file to (re)create for the demo; the inbox and the snapshot go beside it.
        console: Where to print.
        webhook_events: Distinct webhook events in the first burst (a tenth as many follow).
    """
    from emulator import EmulatorServer, ServerOptions
    from emulator.server import BackgroundServer
    from receiver import ReceiverConfig, create_app

    from .demo_show import print_dashboard, print_next_steps, print_warehouse

    path = settings.in_project(warehouse)
    if path.parent.exists():
        shutil.rmtree(path.parent)  # a fresh demo warehouse, inbox and state every time
    path.parent.mkdir(parents=True)
    config = demo_config(users, shifts)
    options = ServerOptions(api_key="demo-key", minute_limit=600, day_limit=100_000)
    inbox_url = f"sqlite:///{path.parent / 'inbox.sqlite3'}"
    console.rule("wfm-sync demo")
    token = secrets.token_urlsafe(16)
    receiver = create_app(ReceiverConfig(token=token, inbox_url=inbox_url))
    with EmulatorServer(config, options) as emulator, BackgroundServer(receiver) as inbound:
        setup = DemoSetup(
            project=demo_project(path, emulator.url, options.api_key, inbox_url),
            inbox_url=inbox_url,
            token=token,
            user_ids=list(range(1000, 1000 + users)),
            webhook_events=webhook_events,
        )
        hook_url = f"{inbound.url}/webhooks/connecteam"
        console.print(
            f"emulator on {emulator.url}: {users:,} users, {config.forms} forms, "
            f"{config.schedulers} schedulers, {shifts:,} shift rows; budget "
            f"{options.minute_limit} requests/minute\nwebhook receiver on {hook_url}, inbox "
            f"{setup.inbox_url}"
        )
        receive_bursts(console, setup, emulator, hook_url)
        subscribe(console, setup.project, hook_url, setup.token)
        first = "run 1: nightly_sync (full sync -> fold -> models -> publish)"
        nightly(console, setup.project, first, "demo-full")
        moved = change_the_day(console, setup, emulator, hook_url)
        fold_the_day(console, setup.project, moved)
    print_warehouse(console, setup.project.paths)
    print_dashboard(console, setup.project.paths)
    write_project_settings(path)
    print_next_steps(console, setup.project.paths)


def write_project_settings(warehouse: Path) -> Path:
    """Make the demo's folder a project of its own: ``.dlt/secrets.toml`` there names its
    warehouse and its inbox, relative to the folder, so ``wfm-sync --project-dir <folder>
    <command>`` (``status``, ``models build``) works on the demo's files from any directory
    (destination credentials and the inbox URL are secrets to dlt: ``config.toml`` may not hold
    them). Returns the file written."""
    settings_file = warehouse.parent / ".dlt" / "secrets.toml"
    settings_file.parent.mkdir(exist_ok=True)
    settings_file.write_text(
        "# Written by `wfm-sync demo`: this folder is the demo's project\n"
        "# (`wfm-sync --project-dir <this folder> status`). Paths are relative to the folder.\n"
        f"[destination.duckdb]\ncredentials = {json.dumps(warehouse.name)}\n\n"
        '[webhooks]\ninbox_url = "sqlite:///inbox.sqlite3"\n'
    )
    return settings_file


def demo_project(warehouse: Path, base_url: str, api_key: str, inbox_url: str) -> Project:
    """What the demo's jobs are given: the ``WFM_SYNC_*`` settings as configured (the currency
    USD unless one is named: the provider states none), every file in the warehouse's folder
    whatever the path settings say, the emulator's account and the receiver's inbox.

    Raises:
        pydantic.ValidationError: A ``WFM_SYNC_*`` variable holds a value of the wrong kind.
        ConnecteamConfigError: A ``SOURCES__CONNECTEAM__*`` value of the wrong kind.
    """
    from sources.configuration import resolve

    resolved = resolve(warehouse, inbox_url=inbox_url)
    configured = resolved.settings
    if configured.currency is None:
        configured = configured.model_copy(update={"currency": "USD"})
    return resolved.model_copy(
        update={
            "settings": configured,
            "paths": paths_beside(warehouse),
            "source": resolved.source.with_account(base_url, api_key),
        }
    )


def receive_bursts(
    console: Console, setup: DemoSetup, emulator: EmulatorServer, hook_url: str
) -> None:
    """Send the receiver a drawn burst of webhook events (5% duplicates, 1% malformed), then the
    time-activity events of the last 7 days' punches (every 20th delivery lost on purpose)."""
    from emulator.webhooks import activity_events, build_burst

    from .emulator import print_burst, send_counted

    console.rule("webhooks: the provider pushes a burst of events")
    bodies = build_burst(
        setup.webhook_events,
        seed=7,
        families=BURST_FAMILIES,
        duplicate_rate=0.05,
        malformed_rate=0.01,
        user_ids=setup.user_ids,
    )
    print_burst(send_counted(hook_url, bodies, token=setup.token, concurrency=16))
    week_ago = int(setup.project.now) - 7 * 86_400
    punches = activity_events(emulator.state.dataset.operations, week_ago)
    console.print(
        f"time-activity webhooks for the last 7 days' punches ({len(punches)}; every "
        "20th delivery lost on purpose, 2 for activities deleted since):"
    )
    print_burst(send_counted(hook_url, punches, token=setup.token, concurrency=16))


def subscribe(console: Console, project: Project, hook_url: str, token: str) -> None:
    """Register the receiver at the emulator (``project``'s account) for every feature family
    (``webhooks subscribe``, version 2 shift webhooks) and print the steps taken."""
    from inbox.events import FEATURE_FAMILIES
    from pipelines.subscriptions import apply, current, plan, receiver_url
    from sources.connecteam.config import client_from_config
    from sources.connecteam.webhook_settings import SUBSCRIPTION_SCOPES

    from .webhooks import print_steps

    console.rule("webhooks subscribe: the receiver registered at the provider")
    subscribed_url = receiver_url(hook_url, token)
    arguments = project.source.arguments()
    with client_from_config(arguments, SUBSCRIPTION_SCOPES, now=project.now) as client:
        wanted, registered = current(client, list(FEATURE_FAMILIES), 2)
        steps = plan(wanted, registered, subscribed_url)
        apply(client, steps, subscribed_url, None)
    print_steps(steps, subscribed_url, out=console)


def nightly(console: Console, project: Project, title: str, streams_label: str) -> None:
    """Run ``nightly_sync`` once on ``project`` under ``title`` and print what it did."""
    from flows.nightly import nightly_sync

    console.rule(title)
    started = time.monotonic()
    result = nightly_sync(streams_label=streams_label, project=project)
    print_nightly(result, time.monotonic() - started)


def change_the_day(
    console: Console, setup: DemoSetup, emulator: EmulatorServer, hook_url: str
) -> str:
    """Change records at the emulator (:data:`DAY_CHANGES`; the emulator delivers their events
    to the subscribed receiver), send a smaller second burst, and return the id of the shift it
    moved two hours later."""
    from emulator.webhooks import build_burst

    from .emulator import print_burst, send_counted

    changed = emulator.control("mutate", DAY_CHANGES)
    console.rule("during the day: changes at the emulator, delivered as webhooks")
    emulator.state.deliverer.wait(120)
    deliveries = emulator.state.deliverer.stats
    console.print(
        f"edited {len(changed['users'])} users (some archived or restored), edited "  # type: ignore[arg-type]
        f"{len(changed['shifts'])} shift rows, deleted {len(changed['deleted_shifts'])}, "  # type: ignore[arg-type]
        f"added {len(changed['new_shifts'])}; moved a shift, reassigned one, added a user "  # type: ignore[arg-type]
        "to one and took one off another; edited 2 form submissions\nthe emulator "
        f"delivered {deliveries['delivered']:,} events to the subscribed receiver "
        f"({deliveries['failed']} given up)"
    )
    more = build_burst(
        max(1, setup.webhook_events // 10), seed=8, families=BURST_FAMILIES,
        user_ids=setup.user_ids,
    )  # fmt: skip
    print_burst(send_counted(hook_url, more, token=setup.token, concurrency=16))
    moved_slot = changed["moved_shifts"][0]  # type: ignore[index]
    moved = str(moved_slot[1]).split(":")[0]
    row = next(r for r in emulator.state.dataset.shifts[moved_slot[0]]
               if r["id"] == moved_slot[1])  # fmt: skip
    console.print(
        f"shift {moved} moved from {_utc(row['startTime'] - 7200)} to {_utc(row['startTime'])} UTC"
    )
    return moved


def fold_the_day(console: Console, project: Project, moved: str) -> None:
    """Fold the day's webhooks with the models (the moved shift shows in ``fct_shifts`` before
    the next sync), then run ``nightly_sync`` again and show the shift as the API has it."""
    from flows.fold import fold_webhooks

    from .demo_show import MOVED_SHIFT_SQL, show

    console.rule("fold_webhooks with models: the day's changes before the next sync")
    started = time.monotonic()
    print_fold(fold_webhooks(models=True, project=project), time.monotonic() - started)
    show(project.paths.snapshot, console,
         f"fct_shifts: the moved shift {moved}, from the webhook (before run 2)",
         MOVED_SHIFT_SQL.format(shift_id=moved))  # fmt: skip
    nightly(console, project, "run 2: nightly_sync (incremental)", "demo-incremental")
    show(project.paths.snapshot, console,
         f"fct_shifts: the moved shift {moved} after run 2 (the API's rows again)",
         MOVED_SHIFT_SQL.format(shift_id=moved))  # fmt: skip


def _utc(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M")
