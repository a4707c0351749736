"""Shifts read from the V2 listing (``shifts_api_version = 2``: one row per shift with every
assigned user) against the emulator (a real HTTP server) and built by dbt: a user taken off a
multi-user shift between two syncs ends that user's assignment in the shift history (a row
marked deleted at the second sync), while the shift's other users stay, as the V1 listing
(where the user's slot vanishes) tells it."""

from __future__ import annotations

import pytest
from conftest import ANCHOR, NOW, point_at, query

from emulator.operations_data import OperationsConfig
from pipelines import run_sync
from pipelines.models import build_models
from sources.configuration import resolve
from sources.connecteam import connecteam_source
from sources.connecteam.errors import ConnecteamConfigError

SMALL = {"time_clocks": 0, "time_activities": 0, "form_submissions": 0, "jobs": 0,
         "time_off_requests": 0, "task_boards": 0, "tasks": 0, "pay_rates": 0,
         "pay_rule_policies": 0, "time_off_balances": 0, "unavailabilities": 0,
         "sales_locations": 0}  # fmt: skip


def test_a_user_taken_off_a_v2_shift_ends_that_assignment_only(
    start_emulator, warehouse, monkeypatch
):
    monkeypatch.setenv("SOURCES__CONNECTEAM__SHIFTS_API_VERSION", "2")
    server = start_emulator(users=6, forms=1, schedulers=1, shifts=300, anchor=ANCHOR,
                            operations=OperationsConfig(**SMALL))  # fmt: skip
    point_at(monkeypatch, server)
    run_sync(("schedulers", "shifts"), project=resolve())

    dataset = server.state.dataset
    users_of = {row["id"]: row["assignedUserIds"] for rows in dataset.shifts.values()
                for row in rows}  # fmt: skip
    monkeypatch.setenv("WFM_SYNC_NOW", str(NOW + 3600))
    with server.state.lock:
        touched = dataset.mutate(unassign_shift_users=1)
    ((sid, slot),) = touched["unassigned_shift_users"]
    (removed,) = users_of[slot]
    base = slot.split(":")[0]
    kept = {u for s, users in users_of.items() if s.split(":")[0] == base and s != slot
            for u in users}  # fmt: skip
    assert kept and removed not in kept  # a multi-user shift lost one of its users
    run_sync(("schedulers", "shifts"), project=resolve())
    build_models(
        warehouse, select="+fct_shifts +int_shift_assignments__versions", project=resolve()
    )

    versions = query(
        warehouse,
        "select user_id, is_deleted from staging.stg_connecteam__shift_versions "
        f"where scheduler_id = {sid} and shift_id = '{base}' "
        "order by observed_at, is_deleted, user_id",
    )
    first = [(u, False) for u in sorted({removed, *kept})]
    assert versions == first + [(u, False) for u in sorted(kept)] + [(removed, True)]
    latest = dict(
        query(
            warehouse,
            "select user_id, is_deleted from intermediate.int_shift_assignments__versions "
            f"where scheduler_id = {sid} and shift_id = '{base}' and valid_to is null",
        )
    )
    assert latest == {**dict.fromkeys(kept, False), removed: True}
    current = query(warehouse, f"select user_id from marts.fct_shifts where shift_id = '{base}' "
                    "and not is_deleted order by user_id")  # fmt: skip
    assert current == [(u,) for u in sorted(kept)]


def test_fct_shifts_has_a_column_per_layer_and_custom_field_of_a_small_account(
    start_emulator, warehouse, monkeypatch
):
    """The tidy account has two layers (Position, Location) and two shift custom fields (Dress
    code, Handover note): at most vars.shift_detail_columns_max, so fct_shifts pivots them, each
    assignment holding its shift's values as the emulator serves them."""
    server = start_emulator(users=4, forms=1, schedulers=1, shifts=80, anchor=ANCHOR,
                            operations=OperationsConfig(**SMALL))  # fmt: skip
    point_at(monkeypatch, server)
    run_sync(
        ("schedulers", "shifts", "shift_layers", "shift_layer_values", "shift_custom_fields"),
        project=resolve(),
    )
    build_models(warehouse, select="+fct_shifts", project=resolve())
    served = {}
    for rows in server.state.dataset.shifts.values():
        for row in rows:
            layers = {x["title"]: x["value"]["displayName"]
                      for x in row["shiftDetails"]["shiftLayers"]}  # fmt: skip
            (dress,) = row["customFields"]
            served[row["id"]] = (layers["Position"], layers["Location"],
                                 dress["value"][0]["value"], None)  # fmt: skip
    loaded = query(warehouse, "select slot_id, layer_position, layer_location, custom_dress_code, "
                   "custom_handover_note from marts.fct_shifts")  # fmt: skip
    assert {slot: tuple(values) for slot, *values in loaded} == served
    assert len(served) == 80


@pytest.mark.parametrize("version", [0, 3, -1])
def test_a_version_the_provider_has_not_is_a_setting_to_fix(version):
    with pytest.raises(ConnecteamConfigError, match="SOURCES__CONNECTEAM__SHIFTS_API_VERSION"):
        connecteam_source(
            0.0, api_key="k", base_url="http://127.0.0.1:9", shifts_api_version=version
        )
