"""Shifts between syncs, end to end with real parts: wfm-sync subscribes the receiver at the
emulator (version 2 shift webhooks), shifts change at the emulator during the day (one moved,
one reassigned, a user added to a shift, one taken off), the emulator delivers the events to the
receiver, the fold and the models run: ``fct_shifts`` shows every change before any API sync;
the next nightly sync then leaves the same schedule. The clocks of the sync and of the emulator
are moved with ``WFM_SYNC_NOW``."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import ANCHOR, NOW, point_at, query

from emulator.server import BackgroundServer
from pipelines import run_sync
from pipelines.fold import run_fold
from pipelines.models import build_models
from pipelines.subscriptions import apply, current, plan, receiver_url
from receiver import PATH, ReceiverConfig, create_app
from sources.configuration import resolve
from sources.connecteam.config import client_from_config
from sources.connecteam.webhook_settings import SUBSCRIPTION_SCOPES

TOKEN = "between-syncs-token"
STREAMS = ("users", "schedulers", "shifts")
LIVE_SQL = (
    "select shift_assignment_key, user_id, epoch(starts_at), epoch(ends_at), scheduled_hours, "
    "is_published, title from marts.fct_shifts where not is_deleted order by 1"
)


def rows_of(warehouse: Any, shift_id: str) -> dict[int, tuple[Any, ...]]:
    """The fct_shifts rows of one shift by user: (start, is_deleted, data_source)."""
    found = query(
        warehouse,
        "select user_id, epoch(starts_at), is_deleted, data_source from marts.fct_shifts "
        f"where shift_id = '{shift_id}'",
    )
    return {r[0]: r[1:] for r in found}


@pytest.mark.slow
def test_shift_changes_reach_fct_shifts_before_the_next_sync(
    start_emulator, warehouse, monkeypatch, tmp_path
):
    server = start_emulator(users=30, forms=1, schedulers=2, shifts=300, anchor=ANCHOR,
                            webhook_retry_seconds=0.5)  # fmt: skip
    point_at(monkeypatch, server)
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    monkeypatch.setenv("WEBHOOKS__INBOX_URL", inbox_url)
    monkeypatch.setenv("WFM_SYNC_NOW", str(NOW))
    receiver = create_app(ReceiverConfig(token=TOKEN, inbox_url=inbox_url))
    with BackgroundServer(receiver) as hooks:
        url = receiver_url(hooks.url + PATH, TOKEN)
        with client_from_config(resolve().source.arguments(), SUBSCRIPTION_SCOPES) as client:
            wanted, registered = current(client, ["shift_scheduler"], 2)
            apply(client, plan(wanted, registered, url), url, None)
        assert len(server.state.webhook_store.webhooks) == 2  # one per scheduler

        run_sync(STREAMS, project=resolve())
        build_models(warehouse, select="+fct_shifts", project=resolve())
        before = query(warehouse, LIVE_SQL)

        monkeypatch.setenv("WFM_SYNC_NOW", str(NOW + 3600))  # the day goes on
        day = {"move_shifts": 1, "reassign_shifts": 1, "add_shift_users": 1,
               "unassign_shift_users": 1}  # fmt: skip
        changed = server.control("mutate", day)
        assert server.state.deliverer.wait(60)
        assert server.state.deliverer.stats["delivered"] == changed["webhook_deliveries"] == 4
        run_fold(project=resolve(inbox_url=inbox_url))
        build_models(warehouse, select="+fct_shifts", project=resolve())
    during = query(warehouse, LIVE_SQL)
    assert during != before

    def base(kind: str) -> tuple[int, str]:
        ((scheduler, slot),) = changed[kind]
        return scheduler, slot.split(":")[0]

    slots = {
        (sid, str(r["id"])): r for sid, rows in server.state.dataset.shifts.items() for r in rows
    }
    # moved two hours later: every assignment of the shift, from the webhook
    _, moved = base("moved_shifts")
    moved_row = slots[tuple(changed["moved_shifts"][0])]
    for user, (start, deleted, source) in rows_of(warehouse, moved).items():
        assert (start, deleted, source) == (moved_row["startTime"], False, "webhook"), user
    # reassigned: the new user holds it, the former one is off
    sid, reassigned = base("reassigned_shifts")
    new_user = slots[(sid, changed["reassigned_shifts"][0][1])]["assignedUserIds"][0]
    shown = rows_of(warehouse, reassigned)
    assert shown[new_user][1:] == (False, "webhook")
    assert [u for u, r in shown.items() if r[1]] != []  # the former assignee, flagged deleted
    # a user added to a shift: a new live row
    sid, added = base("added_shift_users")
    added_user = slots[(sid, changed["added_shift_users"][0][1])]["assignedUserIds"][0]
    assert rows_of(warehouse, added)[added_user][1:] == (False, "webhook")
    # a user taken off: flagged deleted, the others stay
    _, reduced = base("unassigned_shift_users")
    shown = rows_of(warehouse, reduced)
    assert sum(r[1] for r in shown.values()) == 1
    assert all(r[2] == "webhook" for r in shown.values() if not r[1])

    # the nightly: the API's rows win again, and say the same
    monkeypatch.setenv("WFM_SYNC_NOW", str(NOW + 7200))
    run_sync(STREAMS, project=resolve())
    run_fold(project=resolve(inbox_url=inbox_url))
    build_models(warehouse, select="+fct_shifts", project=resolve())
    assert query(warehouse, LIVE_SQL) == during
    assert query(
        warehouse, "select count(*) from marts.fct_shifts where data_source = 'webhook'"
    ) == [(0,)]
