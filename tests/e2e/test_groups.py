"""Smart groups against the emulator (a real HTTP server): the two unpaged listings cost one
request each and load exactly what the emulator serves (tidy and drawn from the spec's schemas),
a group the provider stops listing is marked deleted, and a user moved between groups across
three syncs gives two rows of ``bridge_user_groups`` whose validity is the syncs' times."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from conftest import NOW, point_at, query

from emulator.domains.groups.data import groups_of
from pipelines import run_sync
from pipelines.models import build_models
from sources.configuration import resolve


def requests_to(server, path: str) -> int:
    return sum(n for p, n in server.stats()["requests"].items() if p == path)


@pytest.mark.parametrize("data", ["emulator", "spec"])
def test_groups_and_segments_load_as_served_in_one_request_each(
    start_emulator, warehouse, monkeypatch, data
):
    server = start_emulator(users=5, forms=1, schedulers=1, shifts=0, data=data)
    point_at(monkeypatch, server)
    run_sync(("smart_groups", "smart_group_segments"), project=resolve())
    assert requests_to(server, "/users/v1/smart-groups") == 1
    assert requests_to(server, "/users/v1/smart-group-segments") == 1
    records = groups_of(server.state.dataset)
    groups = query(warehouse, "select id, name, group_segment_id from connecteam.smart_groups")
    assert sorted(groups) == sorted(
        (g["id"], g.get("name"), g.get("groupSegmentId")) for g in records.groups
    )
    segments = query(warehouse, "select id, name from connecteam.smart_group_segments")
    assert sorted(segments) == sorted((s["id"], s.get("name")) for s in records.segments)

    records.groups.pop()  # the provider no longer lists the last group
    run_sync(("smart_groups",), project=resolve())
    deleted = query(warehouse, "select id from connecteam.smart_groups where is_deleted")
    assert deleted == [(11,)]


def at(day: int) -> datetime:
    """The tests' clock moved ``day`` days on (a sync a day), as a UTC datetime."""
    return datetime.fromtimestamp(NOW + day * 86_400, UTC)


def test_a_user_moved_between_groups_across_three_syncs_has_two_bridge_rows(
    start_emulator, warehouse, monkeypatch
):
    server = start_emulator(users=3, forms=1, schedulers=1, shifts=0)
    point_at(monkeypatch, server)
    users = server.state.dataset.users
    mover = next(iter(users))
    users[mover]["smartGroupsIds"] = [4]
    run_sync(
        ("users", "smart_groups", "smart_group_segments"), project=resolve()
    )  # sync 1: in group 4

    monkeypatch.setenv("WFM_SYNC_NOW", str(NOW + 86_400))
    users[mover]["smartGroupsIds"] = [5]  # moved to group 5: a change of the user record
    users[mover]["modifiedAt"] = NOW + 86_400 - 60
    run_sync(("users",), project=resolve())  # sync 2: in group 5

    monkeypatch.setenv("WFM_SYNC_NOW", str(NOW + 2 * 86_400))
    run_sync(("users",), project=resolve())  # sync 3: nothing changed
    build_models(warehouse, select="+bridge_user_groups +dim_groups", project=resolve())
    rows = query(
        warehouse,
        "select group_id, valid_from, valid_to, is_current from marts.bridge_user_groups "
        f"where user_id = {mover} order by valid_from",
    )
    assert rows == [(4, at(0), at(1), False), (5, at(1), None, True)]
    labels = dict(query(warehouse, "select group_id, group_label from marts.dim_groups"))
    assert labels[4] == "Downtown" and labels[5] == "Harbour"
