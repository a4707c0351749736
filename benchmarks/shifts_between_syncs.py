"""Benchmark: how long a shift changed during the day takes to reach ``fct_shifts``, by webhook
(deliver, fold, rebuild the models that read webhooks, publish) next to the nightly sync that
would otherwise be the first to show it.

    .venv/bin/python -m benchmarks.shifts_between_syncs [--users 2000] [--shifts 20000]

Against the emulator (in this process) and the receiver on 127.0.0.1: ``webhooks subscribe``
(version 2 shift webhooks), one ``nightly_sync`` to fill a fresh DuckDB warehouse (not timed),
then the day's changes at the emulator (a shift moved, one reassigned, a user added to one and
one taken off another). Timed: the emulator delivering their events to the receiver, then
``fold_webhooks --models`` (fold, ``dbt build --select source:webhooks+``, publish), after which
``fct_shifts`` shows the moved shift from its webhook. The reference, in the same run: an
incremental ``nightly_sync`` (sync, fold, the whole ``dbt build``, publish), the earliest the
change shows without webhooks (and it runs at night).
"""

from __future__ import annotations

import argparse
import os
import secrets
import tempfile
import time
from pathlib import Path

from sources.configuration import resolve


def main() -> None:
    """Run the benchmark and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--shifts", type=int, default=20000)
    args = parser.parse_args()

    import duckdb

    from emulator import EmulatorConfig, EmulatorServer, ServerOptions
    from emulator.server import BackgroundServer
    from flows.fold import fold_webhooks
    from flows.nightly import nightly_sync
    from pipelines.subscriptions import apply, current, plan, receiver_url
    from receiver import PATH, ReceiverConfig, create_app
    from sources.connecteam.config import client_from_config
    from sources.connecteam.webhook_settings import SUBSCRIPTION_SCOPES

    config = EmulatorConfig(seed=11, users=args.users, forms=4, schedulers=4, shifts=args.shifts)
    options = ServerOptions(api_key="bench", minute_limit=1_000_000, day_limit=10_000_000)
    token = secrets.token_urlsafe(12)
    with tempfile.TemporaryDirectory() as tmp:
        warehouse = Path(tmp) / "warehouse.duckdb"
        inbox_url = f"sqlite:///{Path(tmp) / 'inbox.sqlite3'}"
        receiver = create_app(ReceiverConfig(token=token, inbox_url=inbox_url))
        with EmulatorServer(config, options) as server, BackgroundServer(receiver) as hooks:
            os.environ.update(
                SOURCES__CONNECTEAM__BASE_URL=server.url, SOURCES__CONNECTEAM__API_KEY="bench",
                DESTINATION__DUCKDB__CREDENTIALS=str(warehouse), WEBHOOKS__INBOX_URL=inbox_url,
            )  # fmt: skip
            url = receiver_url(hooks.url + PATH, token)
            with client_from_config(resolve().source.arguments(), SUBSCRIPTION_SCOPES) as client:
                wanted, registered = current(client, ["shift_scheduler"], 2)
                apply(client, plan(wanted, registered, url), url, None)
            nightly_sync(streams_label="bench-full", project=resolve())

            day: dict[str, object] = {"move_shifts": 1, "reassign_shifts": 1,
                                      "add_shift_users": 1, "unassign_shift_users": 1}  # fmt: skip
            changed = server.control("mutate", day)
            started = time.monotonic()
            server.state.deliverer.wait(120)
            delivered = time.monotonic() - started
            started = time.monotonic()
            fold_webhooks(models=True, project=resolve())
            folded = time.monotonic() - started
            moved = str(changed["moved_shifts"][0][1]).split(":")[0]  # type: ignore[index]
            with duckdb.connect(str(Path(tmp) / "analytics.duckdb"), read_only=True) as con:
                sources = con.sql(
                    f"select distinct data_source from marts.fct_shifts where shift_id = '{moved}'"
                ).fetchall()
            started = time.monotonic()
            nightly_sync(streams_label="bench-incremental", project=resolve())
            nightly = time.monotonic() - started
    events = server.state.deliverer.stats["delivered"]
    print(f"\n{args.users:,} users, {args.shifts:,} shift rows, 4 schedulers; the moved shift "
          f"showed from {sorted(s for (s,) in sources)} after the fold\n")  # fmt: skip
    print("| path to `fct_shifts` | seconds |")
    print("|---|---:|")
    print(f"| emulator delivers the {events} events to the receiver | {delivered:.1f} |")
    print(f"| `fold_webhooks --models` (fold, build what reads webhooks, publish) | {folded:.1f} |")
    print(f"| **by webhook, in all** | **{delivered + folded:.1f}** |")
    print(f"| reference: incremental `nightly_sync` (sync, fold, whole build, publish) | "
          f"{nightly:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
