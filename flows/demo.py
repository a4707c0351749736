"""``wfm-sync demo``: the whole API slice on one laptop, with no provider account.

Starts the emulator on a free loopback port, runs ``nightly_sync`` against it, changes some
records at the emulator, runs ``nightly_sync`` again to show the incremental pick-up, then prints
per-table counts, the warehouse path and three example queries with their answers.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
from rich.console import Console
from rich.table import Table

EXAMPLE_QUERIES = {
    "Active and archived users": (
        "select case when is_archived then 'archived' else 'active' end as status, "
        "count(*) as users from connecteam.users group by all order by 1"
    ),
    "Scheduled hours per scheduler in the next 7 days": (
        "select s.name as scheduler, count(*) as assignments, "
        "round(sum(sh.end_time - sh.start_time) / 3600.0, 1) as hours "
        "from connecteam.shifts sh join connecteam.schedulers s using (scheduler_id) "
        "where not sh.is_deleted and sh.user_id is not null "
        "and to_timestamp(sh.start_time) between now() and now() + interval 7 day "
        "group by all order by hours desc"
    ),
    "Webhook events per family": (
        "select family, count(*) as events, count(distinct event_type) as event_types "
        "from webhooks.events group by all order by events desc"
    ),
    "Open shifts and deleted shift rows": (
        "select count(*) filter (where is_open_shift and not is_deleted) as open_shifts, "
        "count(*) filter (where is_deleted) as deleted_rows, count(*) as all_rows "
        "from connecteam.shifts"
    ),
}


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def run_demo(
    users: int, shifts: int, warehouse: str, console: Console, webhook_events: int = 2000
) -> None:
    """Run the demo; prints everything it does to ``console``.

    Args:
        users: Users at the emulator.
        shifts: V1 shift rows at the emulator.
        warehouse: DuckDB file to (re)create for the demo.
        console: Where to print.
        webhook_events: Distinct webhook events in the burst sent to the receiver.
    """
    from emulator import EmulatorConfig, EmulatorServer, ServerOptions
    from flows.cli import print_summary
    from flows.nightly import nightly_sync

    path = Path(warehouse)
    if path.parent.exists():
        shutil.rmtree(path.parent)  # a fresh demo warehouse and pipeline state every time
    path.parent.mkdir(parents=True)
    config = EmulatorConfig(seed=42, users=users, forms=20, schedulers=4, shifts=shifts)
    options = ServerOptions(api_key="demo-key", minute_limit=600, day_limit=100_000)
    console.rule("wfm-sync demo")
    with EmulatorServer(config, options) as emulator:
        console.print(
            f"emulator on {emulator.url}: {users:,} users, {config.forms} forms, "
            f"{config.schedulers} schedulers, {shifts:,} shift rows; budget "
            f"{options.minute_limit} requests/minute"
        )
        env = {
            "SOURCES__CONNECTEAM__BASE_URL": emulator.url,
            "SOURCES__CONNECTEAM__API_KEY": options.api_key,
            "DESTINATION__DUCKDB__CREDENTIALS": str(path),
        }
        with _environment(env):
            console.rule("run 1: full sync")
            started = time.monotonic()
            print_summary(nightly_sync(streams_label="demo-full"), time.monotonic() - started)

            changed = emulator.control(
                "mutate", {"users": 25, "shifts": 40, "delete_shifts": 5, "new_shifts": 10}
            )
            console.rule("changes at the emulator")
            console.print(
                f"edited {len(changed['users'])} users (some archived or restored), edited "  # type: ignore[arg-type]
                f"{len(changed['shifts'])} shift rows, deleted {len(changed['deleted_shifts'])}, "  # type: ignore[arg-type]
                f"added {len(changed['new_shifts'])}"  # type: ignore[arg-type]
            )
            console.rule("run 2: incremental sync")
            started = time.monotonic()
            print_summary(
                nightly_sync(streams_label="demo-incremental"), time.monotonic() - started
            )

            _webhooks(path, console, webhook_events)

    console.rule("warehouse")
    with duckdb.connect(str(path), read_only=True) as con:
        console.print(f"warehouse: {path.resolve()}")
        counts = Table()
        counts.add_column("table")
        counts.add_column("rows", justify="right")
        for name in ("connecteam.users", "connecteam.forms", "connecteam.schedulers",
                     "connecteam.shifts", "webhooks.events", "webhooks.quarantine"):  # fmt: skip
            (n,) = con.sql(f"select count(*) from {name}").fetchall()[0]
            counts.add_row(name, f"{n:,}")
        console.print(counts)
        for title, sql in EXAMPLE_QUERIES.items():
            relation = con.sql(sql)
            console.print(f"[bold]{title}[/]")
            console.print(sql, style="dim", highlight=False)
            result = Table()
            for column in relation.columns:
                result.add_column(column)
            for row in relation.fetchall():
                result.add_row(*(str(v) for v in row))
            console.print(result)
    console.print(
        f'Query it yourself: python -c "import duckdb; '
        f"print(duckdb.connect('{path}').sql('from connecteam.users limit 5'))\""
    )


def _webhooks(warehouse: Path, console: Console, events: int) -> None:
    """Receive a burst of webhooks into the demo inbox and fold it with ``fold_webhooks``."""
    import asyncio
    import secrets

    from emulator.server import BackgroundServer
    from emulator.webhooks import build_burst, send_burst
    from flows.cli import print_burst, print_fold
    from flows.fold import fold_webhooks
    from sources.webhooks.receiver import ReceiverSettings, create_app

    token = secrets.token_urlsafe(16)
    inbox_url = f"sqlite:///{warehouse.parent / 'inbox.sqlite3'}"
    receiver = create_app(ReceiverSettings(token=token, inbox_url=inbox_url))
    console.rule("webhooks: receive a burst, then fold it")
    with BackgroundServer(receiver) as server:
        url = f"{server.url}/webhooks/connecteam"
        console.print(f"receiver on {url}, inbox {inbox_url}")
        bodies = build_burst(events, seed=7, duplicate_rate=0.05, malformed_rate=0.01)
        print_burst(asyncio.run(send_burst(url, bodies, token=token, concurrency=16)))
    with _environment({"WEBHOOKS__INBOX_URL": inbox_url}):
        started = time.monotonic()
        print_fold(fold_webhooks(), time.monotonic() - started)
