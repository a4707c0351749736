"""Shift layers, their values, shift custom fields and the labels of user custom fields against
the emulator (a real HTTP server): each paged listing at N = 0, L-1, L, L+1 records costs
floor(N/L)+1 requests (counted at the emulator) and loads exactly what the emulator serves, tidy
and drawn from the spec's schemas; a value the provider stops listing is marked deleted; and
``shifts_api_version = 2`` reads the V2 listing (one row per shift, every user) into the same
assignments the V1 listing gives."""

from __future__ import annotations

import json

import httpx
import pytest
from conftest import ANCHOR, NOW, account_project, point_at, query

from emulator.domains.shift_layers.data import shift_settings_of
from emulator.operations_data import OperationsConfig
from pipelines import run_sync
from sources.configuration import resolve
from sources.connecteam.registry import STREAMS

SMALL = {"time_clocks": 0, "time_activities": 0, "form_submissions": 0, "jobs": 0,
         "time_off_requests": 0, "task_boards": 0, "tasks": 0, "pay_rates": 0,
         "pay_rule_policies": 0, "time_off_balances": 0, "unavailabilities": 0,
         "sales_locations": 0}  # fmt: skip


def server_with(start_emulator, data: str = "emulator", shifts: int = 0, **sizes):
    operations = OperationsConfig(**{**SMALL, **sizes})
    return start_emulator(users=3, forms=1, schedulers=1, shifts=shifts, anchor=ANCHOR,
                          data=data, operations=operations)  # fmt: skip


def requests_to(server, suffix: str) -> int:
    return sum(n for p, n in server.stats()["requests"].items() if p.endswith(suffix))


def loaded(warehouse, table: str, columns: str) -> list[tuple]:
    """The live rows' ``columns`` of raw ``table``, sorted; none when no run created it (a
    listing that never returned a record)."""
    tables = query(warehouse, "select table_name from information_schema.tables where "
                   f"table_schema = 'connecteam' and table_name = '{table}'")  # fmt: skip
    if not tables:
        return []
    return sorted(
        query(warehouse, f"select {columns} from connecteam.{table} where not is_deleted"),
        key=repr,
    )


@pytest.mark.parametrize("data", ["emulator", "spec"])
def test_layer_values_cost_floor_n_over_l_plus_one_and_load_as_served(
    start_emulator, warehouse, monkeypatch, data
):
    limit = STREAMS["shift_layer_values"].max_limit
    assert limit == 500  # the spec's maximum for GET .../shift-layers/{layerId}/values
    for n in (0, limit - 1, limit, limit + 1):
        server = server_with(start_emulator, data, shift_layer_values=n)
        point_at(monkeypatch, server)
        run_sync(("shift_layers", "shift_layer_values"), project=resolve())
        settings = shift_settings_of(server.state.dataset)
        (sid,) = settings.layers
        layers = settings.layers[sid]
        assert requests_to(server, "/shift-layers") == 1, f"N={n} ({data})"
        per_layer = [len(settings.values[layer["id"]]) for layer in layers]
        asked = sum(k // limit + 1 for k in per_layer)
        assert requests_to(server, "/values") == asked, f"N={n} ({data})"
        assert n in per_layer
        assert loaded(warehouse, "shift_layers", "scheduler_id, id, title") == sorted(
            ((sid, x["id"], x.get("title")) for x in layers), key=repr
        )
        assert loaded(warehouse, "shift_layer_values", "layer_id, id, display_name") == sorted(
            (
                (layer["id"], v["id"], v.get("displayName"))
                for layer in layers
                for v in settings.values[layer["id"]]
            ),
            key=repr,
        ), f"N={n} ({data})"


@pytest.mark.parametrize("data", ["emulator", "spec"])
def test_shift_custom_fields_and_categories_cost_floor_n_over_l_plus_one(
    start_emulator, warehouse, monkeypatch, data
):
    fields_limit = STREAMS["shift_custom_fields"].max_limit
    categories_limit = STREAMS["user_custom_field_categories"].max_limit
    assert (fields_limit, categories_limit) == (100, 500)  # the spec's maxima
    for n in (0, 99, 100, 101, 499, 500, 501):
        server = server_with(start_emulator, data, shift_custom_fields=min(n, 101),
                             custom_field_categories=n)  # fmt: skip
        point_at(monkeypatch, server)
        run_sync(("shift_custom_fields", "user_custom_field_categories"), project=resolve())
        settings = shift_settings_of(server.state.dataset)
        (sid,) = settings.custom_fields
        fields = settings.custom_fields[sid]
        assert requests_to(server, "{schedulerId}/custom-fields") == min(n, 101) // fields_limit + 1
        assert requests_to(server, "/custom-field-categories") == n // categories_limit + 1
        assert loaded(warehouse, "shift_custom_fields", "id, name, type") == sorted(
            ((f["id"], f.get("name"), f.get("type")) for f in fields), key=repr
        ), f"N={n} ({data})"
        assert loaded(warehouse, "user_custom_field_categories", "id, name") == sorted(
            ((c["id"], c.get("name")) for c in settings.categories), key=repr
        ), f"N={n} ({data})"


@pytest.mark.parametrize("data", ["emulator", "spec"])
def test_dropdown_options_cost_floor_n_over_l_plus_one_per_dropdown_field(
    start_emulator, warehouse, monkeypatch, data
):
    limit = STREAMS["user_custom_field_options"].max_limit
    assert limit == 100
    for n in (0, limit - 1, limit, limit + 1):
        server = server_with(start_emulator, data, dropdown_options=n)
        point_at(monkeypatch, server)
        run_sync(("user_custom_field_definitions", "user_custom_field_options"), project=resolve())
        fields = server.state.dataset.operations.custom_fields
        dropdowns = sorted(f["id"] for f in fields if f.get("type") == "dropdown")
        assert dropdowns  # the tidy account's Department; spec data draws some too
        asked = len(dropdowns) * (n // limit + 1)
        assert requests_to(server, "/options") == asked, f"N={n} ({data})"
        # the definitions are listed once for both streams
        assert requests_to(server, "/users/v1/custom-fields") == 1
        rows = loaded(warehouse, "user_custom_field_options", "custom_field_id, id, value")
        expected = [(f, k + 1, f"Option {k + 1}") for f in dropdowns for k in range(n)]
        assert rows == sorted(expected, key=repr), f"N={n} ({data})"


def test_a_value_the_provider_stops_listing_is_marked_deleted(
    start_emulator, warehouse, monkeypatch
):
    server = server_with(start_emulator)
    point_at(monkeypatch, server)
    run_sync(("shift_layers", "shift_layer_values"), project=resolve())
    values = shift_settings_of(server.state.dataset).values["layer-location"]
    gone = values.pop()  # Old Town is no longer a location value
    run_sync(("shift_layers", "shift_layer_values"), project=resolve())
    deleted = query(warehouse, "select id, display_name from connecteam.shift_layer_values "
                    "where is_deleted")  # fmt: skip
    assert deleted == [(gone["id"], gone["displayName"])] == [("location-4", "Old Town")]
    assert (
        run_sync(("shift_layer_values",), project=resolve()).rows.get("shift_layer_values", 0) == 0
    )


def test_a_parent_gone_between_listings_keeps_its_rows(start_emulator, warehouse, monkeypatch):
    """A layer whose values answer 404 (its scheduler or layer vanished since it was listed) is
    skipped: its loaded values stay as they were, while a listed layer's vanished value is
    marked deleted."""
    operations = OperationsConfig(**SMALL)
    server = start_emulator(users=3, forms=1, schedulers=2, shifts=0, anchor=ANCHOR,
                            operations=operations)  # fmt: skip
    point_at(monkeypatch, server)
    run_sync(("shift_layers", "shift_layer_values"), project=resolve())
    first, second = sorted(server.state.dataset.schedulers)
    gone = shift_settings_of(server.state.dataset).values["layer-location"].pop()
    path = f"/scheduler/v1/schedulers/{second}/shift-layers/layer-location/values"
    server.state.options.failing_paths[path] = 404
    run_sync(("shift_layers", "shift_layer_values"), project=resolve())
    deleted = query(warehouse, "select shift_layer_value_key from connecteam.shift_layer_values "
                    "where is_deleted")  # fmt: skip
    assert deleted == [(f"{first}:layer-location:{gone['id']}",)]
    kept = query(
        warehouse,
        "select count(*) from connecteam.shift_layer_values where not "
        f"is_deleted and starts_with(shift_layer_value_key, '{second}:layer-location:')",
    )
    assert kept == [(4,)]  # all four, the one gone elsewhere included: not listed, not judged


def test_v2_shifts_give_the_assignments_v1_gives(start_emulator, tmp_path, monkeypatch):
    server = server_with(start_emulator, shifts=60)
    point_at(monkeypatch, server)
    assignments = {}
    for version in (1, 2):
        monkeypatch.setenv("SOURCES__CONNECTEAM__SHIFTS_API_VERSION", str(version))
        warehouse = tmp_path / f"v{version}.duckdb"
        monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(warehouse))
        run_sync(("shifts",), project=resolve())
        rows = query(warehouse, "select id, assigned_user_ids from connecteam.shifts")
        assignments[version] = sorted(
            (row_id.split(":")[0], user)
            for row_id, users in rows
            for user in (json.loads(users) or [None])
        )
        assert requests_to(server, "/scheduler/v2/schedulers/{schedulerId}/shifts") == (
            version == 2
        )
    assert assignments[1] == assignments[2]
    v1_rows = len(assignments[1])
    (v2_rows,) = query(tmp_path / "v2.duckdb", "select count(*) from connecteam.shifts")[0]
    assert v2_rows < v1_rows  # some shift has several users: one V2 row, several V1 rows


def test_v2_shifts_cost_floor_n_over_l_plus_one_and_load_one_row_per_shift(
    start_emulator, warehouse, monkeypatch
):
    """With one user every shift has one row in both shapes, so the emulator's N shift rows
    are N V2 shifts: N = 0, L-1, L, L+1 cost floor(N/L)+1 requests of the V2 listing."""
    limit = STREAMS["shifts"].max_limit
    assert limit == 500  # the spec's maximum for GET /scheduler/v2/schedulers/{id}/shifts too
    monkeypatch.setenv("SOURCES__CONNECTEAM__SHIFTS_API_VERSION", "2")
    for n in (0, limit - 1, limit, limit + 1):
        operations = OperationsConfig(**SMALL)
        server = start_emulator(users=1, archived_fraction=0, forms=1, schedulers=1, shifts=n,
                                anchor=ANCHOR, operations=operations)  # fmt: skip
        point_at(monkeypatch, server)
        run_sync(("shifts",), project=resolve())
        (served,) = server.state.dataset.shifts.values()
        assert len(served) == n
        template = "/scheduler/v2/schedulers/{schedulerId}/shifts"
        assert requests_to(server, template) == n // limit + 1, f"N={n}"
        assert requests_to(server, "/scheduler/v1/schedulers/{schedulerId}/shifts") == 0
        ids = loaded(warehouse, "shifts", "id") if n else []
        assert ids == sorted(((r["id"].split(":")[0],) for r in served), key=repr), f"N={n}"


def test_a_second_pass_lists_again_only_the_parent_that_lost_a_row(tmp_path, monkeypatch):
    """Per-parent listings of several pages without ``paging.total`` are of unknown consistency;
    when a row looks gone, only its parent's listing is read again (issue: one listing read
    twice where one request sufficed). Scheduler 9000 has 150 shift custom fields (two pages of
    100, no total), 9001 three (one page: consistent). Losing one of 9000's costs its two pages
    again and nothing of 9001's; losing one of 9001's needs no second pass at all."""

    monkeypatch.setenv("WFM_SYNC_NOW", str(NOW))
    fields = {9000: [f"f{i}" for i in range(150)], 9001: ["g0", "g1", "g2"]}
    asked: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        path, offset = request.url.path, int(request.url.params.get("offset", 0))
        asked.append(path)
        if path == "/scheduler/v1/schedulers":
            page = [{"schedulerId": sid, "name": f"S{sid}"} for sid in fields][offset:]
            return httpx.Response(200, json={"data": {"schedulers": page}})
        sid = int(path.split("/")[4])
        page = [{"id": i, "name": i, "type": "text"} for i in fields[sid][offset : offset + 100]]
        return httpx.Response(200, json={"data": {"customFields": page}})

    warehouse = tmp_path / "warehouse.duckdb"
    project = account_project(warehouse, "http://127.0.0.1:9", "k")

    def sync() -> dict[int, int]:
        asked.clear()
        summary = run_sync(["shift_custom_fields"], project=project, max_in_flight=1,
                           transport=httpx.MockTransport(handle))  # fmt: skip
        assert not summary.failed_streams
        return {sid: sum(p.endswith(f"/{sid}/custom-fields") for p in asked) for sid in fields}

    assert sync() == {9000: 2, 9001: 1}
    fields[9000].remove("f10")
    assert sync() == {9000: 4, 9001: 1}
    fields[9001].remove("g1")
    assert sync() == {9000: 2, 9001: 1}
    deleted = query(warehouse, "select shift_custom_field_key from connecteam.shift_custom_fields "
                    "where is_deleted order by 1")  # fmt: skip
    assert deleted == [("9000:f10",), ("9001:g1",)]
