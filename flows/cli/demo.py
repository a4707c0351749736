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

import re
import secrets
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from core import settings
from emulator.config import DEMO_SHIFTS, DEMO_USERS, demo_config

from .live import live_progress
from .render import print_fold, print_nightly
from .terminal import console as stdout
from .terminal import fail, setup_logging

if TYPE_CHECKING:
    import duckdb

EXAMPLE_QUERIES = {
    "Active and archived users": (
        "select case when is_archived then 'archived' else 'active' end as status, "
        "count(*) as users from marts.dim_users where not is_inferred group by all order by 1"
    ),
    "Scheduled hours per scheduler in the next 7 days": (
        "select scheduler_name, count(*) as assignments, round(sum(scheduled_hours), 1) as hours "
        "from marts.fct_shifts where not is_deleted and user_id is not null "
        "and starts_at between now() and now() + interval 7 day group by all order by hours desc"
    ),
    "Webhook events per family": (
        "select family, count(*) as events, count(distinct event_type) as event_types "
        "from webhooks.events group by all order by events desc"
    ),
}
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
MOVED_SHIFT_SQL = (
    "select user_id, strftime(starts_at, '%Y-%m-%d %H:%M') as starts_utc, "
    "strftime(ends_at, '%H:%M') as ends_utc, data_source, "
    "strftime(changed_at, '%H:%M:%S') as webhook_at, is_deleted from marts.fct_shifts "
    "where shift_id = '{shift_id}' order by user_id"
)
CLOSING_QUERIES = {
    "Reconciliation: time activities the API and the webhooks disagree on": (
        "select data_source, count(distinct user_id) as users, sum(activity_count) as activities, "
        "round(sum(api_hours), 1) as api_hours, round(sum(webhook_hours), 1) as webhook_hours "
        "from marts.fct_time_activity_reconciliation group by all order by 1"
    ),
    "fct_time_activities: where the hours came from": (
        "select data_source, count(*) as activities, round(sum(duration_hours), 1) as hours "
        "from marts.fct_time_activities where not is_deleted group by all order by 1"
    ),
    "fct_daily_hours: scheduled vs worked hours, largest variances": (
        "select user_id, local_date, scheduled_hours as scheduled, worked_hours as worked, "
        "variance_hours as variance, open_punch_count as open_punches from marts.fct_daily_hours "
        "where worked_hours > 0 order by abs(variance_hours) desc, user_id limit 5"
    ),
    "fct_daily_hours: our worked hours against the provider's timesheet, per reason": (
        "select coalesce(variance_reason, 'match') as reason, count(*) as user_days, "
        "round(sum(worked_hours), 1) as worked, round(sum(provider_work_hours), 1) as provider, "
        "round(sum(hours_variance), 1) as variance from marts.fct_daily_hours "
        "where punch_count > 0 or is_in_timesheet group by all order by user_days desc"
    ),
    "fct_attendance: who came late, left early or not at all, per day": (
        "select local_date, count(*) filter (where not is_unscheduled) as assignments, "
        "count(*) filter (where is_late) as late, "
        "round(avg(late_minutes) filter (where is_late), 1) as avg_late_min, "
        "count(*) filter (where early_leave_minutes > 0) as left_early, "
        "count(*) filter (where no_show) as no_shows, "
        "count(*) filter (where is_unscheduled) as unscheduled_punches "
        "from marts.fct_attendance where local_date is not null "
        "group by all order by local_date desc limit 5"
    ),
    "fct_labour_cost_daily: what the paid hours cost, per day": (
        "select local_date, round(sum(paid_hours), 1) as hours, "
        "round(sum(labour_cost), 2) as labour_cost, "
        "count(*) filter (where cost_source = 'provider') as provider_pay, "
        "count(*) filter (where rate_source in ('resource', 'sub_resource')) as at_job_rate, "
        "count(*) filter (where rate_type <> 'hourly') as salaried, "
        "count(*) filter (where has_no_rate) as without_rate "
        "from marts.fct_labour_cost_daily where local_date is not null "
        "group by all order by local_date desc limit 5"
    ),
    "fct_schedule_changes_weekly: schedule changes per scheduler and week": (
        "select scheduler_id, week_start, change_count as changes, added_count as added, "
        "cancelled_count as cancelled, time_moved_count as moved, "
        "inside_notice_window_count as within_14_days, inside_24h_count as within_24_hours, "
        "dated_at_sync_count as seen_at_sync from marts.fct_schedule_changes_weekly "
        "order by week_start desc, scheduler_id limit 5"
    ),
    "fct_timesheet_periods: latest status per user and period": (
        "select user_id, period_start, status, strftime(submitted_at, '%H:%M') as submitted, "
        "strftime(approved_at, '%H:%M') as approved, approval_lag_hours as lag_h, "
        "locked_day_count as locked_days from marts.fct_timesheet_periods "
        "order by status_changed_at desc nulls last, user_id limit 5"
    ),
}


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
    from core.clock import now as clock_now
    from emulator import EmulatorServer, ServerOptions
    from emulator.server import BackgroundServer
    from emulator.webhooks import activity_events, build_burst
    from flows.fold import fold_webhooks
    from flows.nightly import nightly_sync
    from pipelines.subscriptions import apply, current, plan, receiver_url
    from receiver import ReceiverSettings, create_app
    from sources.connecteam.config import client_from_config
    from sources.connecteam.webhook_settings import SUBSCRIPTION_SCOPES
    from sources.webhooks.events import FEATURE_FAMILIES

    from .emulator import print_burst, send_counted
    from .webhooks import print_steps

    path = settings.in_project(warehouse)
    if path.parent.exists():
        shutil.rmtree(path.parent)  # a fresh demo warehouse, inbox and state every time
    path.parent.mkdir(parents=True)
    config = demo_config(users, shifts)
    options = ServerOptions(api_key="demo-key", minute_limit=600, day_limit=100_000)
    token = secrets.token_urlsafe(16)
    inbox_url = f"sqlite:///{path.parent / 'inbox.sqlite3'}"
    user_ids = list(range(1000, 1000 + users))
    console.rule("wfm-sync demo")
    receiver = create_app(ReceiverSettings(token=token, inbox_url=inbox_url))
    with EmulatorServer(config, options) as emulator, BackgroundServer(receiver) as inbound:
        hook_url = f"{inbound.url}/webhooks/connecteam"
        console.print(
            f"emulator on {emulator.url}: {users:,} users, {config.forms} forms, "
            f"{config.schedulers} schedulers, {shifts:,} shift rows; budget "
            f"{options.minute_limit} requests/minute\nwebhook receiver on {hook_url}, inbox "
            f"{inbox_url}"
        )
        env = {
            "SOURCES__CONNECTEAM__BASE_URL": emulator.url,
            "SOURCES__CONNECTEAM__API_KEY": options.api_key,
            "DESTINATION__DUCKDB__CREDENTIALS": str(path),
            "WEBHOOKS__INBOX_URL": inbox_url,
            # the provider states no currency; the demo's account is taken to pay in USD
            "WFM_SYNC_CURRENCY": settings.current().currency or "USD",
        }
        with settings.environment(env):
            console.rule("webhooks: the provider pushes a burst of events")
            bodies = build_burst(
                webhook_events,
                seed=7,
                families=BURST_FAMILIES,
                duplicate_rate=0.05,
                malformed_rate=0.01,
                user_ids=user_ids,
            )
            print_burst(send_counted(hook_url, bodies, token=token, concurrency=16))
            week_ago = int(clock_now()) - 7 * 86_400
            punches = activity_events(emulator.state.dataset.operations, week_ago)
            console.print(
                f"time-activity webhooks for the last 7 days' punches ({len(punches)}; every "
                "20th delivery lost on purpose, 2 for activities deleted since):"
            )
            print_burst(send_counted(hook_url, punches, token=token, concurrency=16))

            console.rule("webhooks subscribe: the receiver registered at the provider")
            subscribed_url = receiver_url(hook_url, token)
            with client_from_config(SUBSCRIPTION_SCOPES) as client:
                wanted, registered = current(client, list(FEATURE_FAMILIES), 2)
                steps = plan(wanted, registered, subscribed_url)
                apply(client, steps, subscribed_url, None)
            print_steps(steps, subscribed_url, out=console)

            console.rule("run 1: nightly_sync (full sync -> fold -> models -> publish)")
            started = time.monotonic()
            print_nightly(nightly_sync(streams_label="demo-full"), time.monotonic() - started)

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
                max(1, webhook_events // 10), seed=8, families=BURST_FAMILIES, user_ids=user_ids
            )
            print_burst(send_counted(hook_url, more, token=token, concurrency=16))
            moved_slot = changed["moved_shifts"][0]  # type: ignore[index]
            moved = str(moved_slot[1]).split(":")[0]
            row = next(r for r in emulator.state.dataset.shifts[moved_slot[0]]
                       if r["id"] == moved_slot[1])  # fmt: skip
            console.print(
                f"shift {moved} moved from {_utc(row['startTime'] - 7200)} to "
                f"{_utc(row['startTime'])} UTC"
            )
            console.rule("fold_webhooks with models: the day's changes before the next sync")
            started = time.monotonic()
            print_fold(fold_webhooks(models=True), time.monotonic() - started)
            _show(path.parent / "analytics.duckdb", console,
                  f"fct_shifts: the moved shift {moved}, from the webhook (before run 2)",
                  MOVED_SHIFT_SQL.format(shift_id=moved))  # fmt: skip

            console.rule("run 2: nightly_sync (incremental)")
            started = time.monotonic()
            print_nightly(
                nightly_sync(streams_label="demo-incremental"),
                time.monotonic() - started,
            )
            _show(path.parent / "analytics.duckdb", console,
                  f"fct_shifts: the moved shift {moved} after run 2 (the API's rows again)",
                  MOVED_SHIFT_SQL.format(shift_id=moved))  # fmt: skip

    import duckdb

    from pipelines.timesheet_match import read_timesheet_match

    snapshot = path.parent / "analytics.duckdb"
    console.rule("the published snapshot")
    console.print(
        f"warehouse: {path.resolve()}\nsnapshot for BI (read-only): {snapshot.resolve()}\n"
        f"marts as Parquet: {(path.parent / 'marts').resolve()}/<mart>.parquet"
    )
    # the raw schemas are not published (WFM_SYNC_PUBLISH_RAW_SCHEMAS): read them from the warehouse
    with (
        duckdb.connect(str(snapshot), read_only=True) as con,
        duckdb.connect(str(path), read_only=True) as raw,
    ):
        counts = Table()
        counts.add_column("table")
        counts.add_column("rows", justify="right")
        for name in ("connecteam.users", "connecteam.shifts", "connecteam.time_activities",
                     "connecteam.timesheets", "connecteam.form_submissions",
                     "connecteam.time_off_requests", "connecteam.tasks", "webhooks.events",
                     "marts.dim_users", "marts.fct_shifts", "marts.fct_time_activities",
                     "marts.fct_daily_hours", "marts.fct_timesheet_periods",
                     "marts.fct_availability", "marts.fct_form_submissions", "marts.fct_time_off",
                     "marts.fct_task_completion_weekly",
                     "marts.fct_time_activity_reconciliation", "marts.fct_attendance",
                     "marts.fct_labour_cost_daily", "marts.fct_schedule_changes",
                     "marts.fct_time_off_balances", "marts.dim_users_history"):  # fmt: skip
            reader = con if name.startswith("marts.") else raw
            (n,) = reader.sql(f"select count(*) from {name}").fetchall()[0]
            counts.add_row(name, f"{n:,}")
        console.print(counts)
        for title, sql in {**EXAMPLE_QUERIES, **CLOSING_QUERIES}.items():
            _show_on(
                raw if re.search(r"\b(connecteam|webhooks)\.", sql) else con, console, title, sql
            )
        match = read_timesheet_match(lambda sql: con.sql(sql).fetchall())
        console.print(f"[bold]{match.line()}[/] (marts.fct_daily_hours)")
    console.print(
        f'Query it yourself: duckdb -readonly {snapshot} "from marts.fct_daily_hours limit 5"'
    )
    report = path.parent / "report.html"
    if not report.exists():
        raise RuntimeError(f"run 2 published but wrote no report at {report}")
    console.rule("the dashboard")
    console.print(
        f"report (the last 14 days, one HTML file, opens offline; run 2's nightly_sync wrote it):\n"
        f"  {report.resolve()}\n"
        "the interactive app (filters: days, scheduler, job, user) on http://127.0.0.1:2718 :\n"
        f"  .venv/bin/wfm-sync dashboard --snapshot {snapshot}"
    )


def _utc(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M")


def _show(snapshot: Path, console: Console, title: str, sql: str) -> None:
    """Print ``sql``'s answer from the published ``snapshot`` (opened read-only, then closed)."""
    import duckdb

    with duckdb.connect(str(snapshot), read_only=True) as con:
        _show_on(con, console, title, sql)


def _show_on(con: duckdb.DuckDBPyConnection, console: Console, title: str, sql: str) -> None:
    relation = con.sql(sql)
    console.print(f"[bold]{title}[/]")
    console.print(sql, style="dim", highlight=False)
    table = Table()
    for column in relation.columns:
        table.add_column(column)
    for row in relation.fetchall():
        table.add_row(*("" if v is None else str(v) for v in row))
    console.print(table)
