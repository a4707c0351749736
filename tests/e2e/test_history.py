"""History with real parts (the emulator and the receiver as HTTP servers, real DuckDB and
SQLite, dbt): every version of a user and of a shift assignment, with its validity, and the
schedule changes they make. The sync's clock is moved between runs with ``WFM_SYNC_NOW``."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest
from conftest import ANCHOR, NOW, point_at, query

from emulator.server import BackgroundServer
from pipelines import run_sync
from pipelines.fold import run_fold
from pipelines.models import build_models
from receiver import PATH, ReceiverConfig, create_app
from sources.configuration import resolve

DAY = 86_400
TOKEN = "history-token"
SCHEDULE_MODELS = (
    "+int_shift_assignments__versions +fct_schedule_changes +fct_schedule_changes_weekly"
)
"""The models the shift tests read, with their parents (a build of these only, and their tests)."""


def sync_at(monkeypatch: pytest.MonkeyPatch, at: int, streams: tuple[str, ...]) -> None:
    monkeypatch.setenv("WFM_SYNC_NOW", str(at))
    run_sync(streams, project=resolve())


@pytest.mark.slow
def test_a_user_edited_twice_between_three_syncs_has_three_versions(
    start_emulator, warehouse, monkeypatch
):
    server = start_emulator(users=5, forms=1, schedulers=1, shifts=0, anchor=ANCHOR)
    point_at(monkeypatch, server)
    user = 1001
    observed = [NOW, NOW + DAY, NOW + 2 * DAY]
    modified = []
    for n, at in enumerate(observed):
        if n:
            server.control("mutate", {"user_ids": [user]})
        modified.append(server.state.dataset.users[user]["modifiedAt"])
        sync_at(monkeypatch, at, ("users",))
    # raises when a model or one of its tests fails
    build_models(warehouse, select="+dim_users_history", project=resolve())
    rows = query(
        warehouse,
        "select version_number, last_name, epoch(valid_from), valid_from_source, "
        "epoch(valid_to), is_current from marts.dim_users_history "
        f"where user_id = {user} order by version_number",
    )
    assert [r[0] for r in rows] == [1, 2, 3]
    assert len({r[1] for r in rows}) == 3  # each edit changed the name
    for n, (_, _, valid_from, source, _, _) in enumerate(rows):
        after_previous = n == 0 or modified[n] > observed[n - 1]
        if modified[n] <= observed[n] and after_previous:
            assert (valid_from, source) == (modified[n], "modified_at")
        else:
            assert (valid_from, source) == (observed[n], "sync")
    assert [r[4] for r in rows] == [rows[1][2], rows[2][2], None]
    assert [r[5] for r in rows] == [False, False, True]
    # the other users: one version each, current
    assert query(
        warehouse,
        "select count(*), count(distinct user_id), bool_and(is_current) "
        f"from marts.dim_users_history where user_id <> {user}",
    ) == [(4, 4, True)]


@pytest.mark.slow
def test_a_shift_moved_by_webhook_then_deleted_at_the_nightly(
    start_emulator, warehouse, monkeypatch, tmp_path
):
    server = start_emulator(users=10, forms=1, schedulers=1, shifts=40, anchor=ANCHOR)
    point_at(monkeypatch, server)
    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    monkeypatch.setenv("WEBHOOKS__INBOX_URL", inbox_url)
    sync_at(monkeypatch, NOW, ("schedulers", "shifts"))
    rows = server.state.dataset.shifts[9000]
    row = next(
        r for r in rows
        if r["isPublished"] and len(r["assignedUserIds"]) == 1 and r["startTime"] > NOW + 2 * DAY
    )  # fmt: skip
    start, end, user = row["startTime"], row["endTime"], row["assignedUserIds"][0]
    shift_id = row["id"].split(":")[0]

    moved_at = NOW + 3600
    body = {
        "requestId": str(uuid.uuid4()), "company": "emulator", "eventType": "shift_updated",
        "eventTimestamp": moved_at, "activityType": "shift", "schedulerId": 9000,
        "webhookVersion": "v1",
        "data": {"shifts": [{**row, "startTime": start + 3600, "endTime": end + 3600,
                             "updateTime": moved_at}]},
    }  # fmt: skip
    app = create_app(ReceiverConfig(token=TOKEN, inbox_url=inbox_url))
    with BackgroundServer(app) as hooks:
        answer = httpx.post(hooks.url + PATH, content=json.dumps(body),
                            headers={"x-webhook-token": TOKEN}, timeout=30)  # fmt: skip
    assert answer.status_code == 200, answer.text
    run_fold(project=resolve(inbox_url=inbox_url))

    rows.remove(row)  # the provider stops returning it: deleted before the next nightly
    deleted_at = NOW + DAY
    sync_at(monkeypatch, deleted_at, ("schedulers", "shifts"))
    build_models(warehouse, select=SCHEDULE_MODELS, project=resolve())  # raises as above

    key = f"9000/{shift_id}/{user}"
    versions = query(
        warehouse,
        "select version_number, detected_by, epoch(starts_at), is_deleted, epoch(valid_from), "
        "epoch(valid_to) from intermediate.int_shift_assignments__versions "
        f"where shift_assignment_key = '{key}' order by version_number",
    )
    assert versions == [
        (1, "sync", start, False, NOW, moved_at),
        (2, "webhook", start + 3600, False, moved_at, deleted_at),
        (3, "sync", start + 3600, True, deleted_at, None),
    ]
    changes = query(
        warehouse,
        "select change_type, detected_by, is_dated_at_sync, epoch(changed_at), notice_hours, "
        "is_inside_notice_window from marts.fct_schedule_changes "
        f"where shift_assignment_key = '{key}' order by changed_at",
    )
    notice_moved = round((start - moved_at) / 3600, 2)
    notice_cancelled = round((start + 3600 - deleted_at) / 3600, 2)
    assert changes == [
        ("time_moved", "webhook", False, moved_at, notice_moved, notice_moved <= 14 * 24),
        ("cancelled", "sync", True, deleted_at, notice_cancelled, notice_cancelled <= 14 * 24),
    ]
    # the scheduler's first sync is the starting point: no other assignment changed
    assert query(warehouse, "select count(*) from marts.fct_schedule_changes") == [(2,)]
    weekly_sql = ("select sum(change_count), sum(time_moved_count), sum(cancelled_count) "
                  "from marts.fct_schedule_changes_weekly")  # fmt: skip
    (weekly,) = query(warehouse, weekly_sql)
    assert weekly == (2, 1, 1)
