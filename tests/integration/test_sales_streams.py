"""The sales streams (``sales_locations``, ``daily_sales``) against the emulator (a real HTTP
server): N = 0, L-1, L, L+1 locations cost floor(N/L)+1 requests, counted at the emulator, and
the sync loads exactly the emulator's records, tidy and drawn from the spec's schemas; daily
sales are one request per run for the whole window, load exactly the entries dated inside it,
keep the provider's nulls, load nothing on an unchanged second run, and mark an entry the
provider stops returning deleted."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from conftest import ANCHOR, NOW, point_at, query

from emulator.domains.sales.data import sales_of
from emulator.operations_data import OperationsConfig
from pipelines import run_sync
from sources.configuration import resolve
from sources.connecteam.registry import STREAMS

SMALL = {"time_clocks": 1, "time_activities": 0, "form_submissions": 0, "jobs": 0,
         "time_off_requests": 0, "task_boards": 0, "tasks": 0, "pay_rates": 0,
         "pay_rule_policies": 0, "time_off_balances": 0, "unavailabilities": 0}  # fmt: skip


def server_with(start_emulator, data: str = "emulator", **sizes: int):
    operations = OperationsConfig(**{**SMALL, **sizes})  # type: ignore[arg-type]
    return start_emulator(users=3, forms=1, schedulers=1, shifts=0, anchor=ANCHOR, data=data,
                          operations=operations)  # fmt: skip


def requests_to(server, path: str) -> int:
    return sum(n for p, n in server.stats()["requests"].items() if p.startswith(path))


@pytest.mark.parametrize("data", ["emulator", "spec"])
def test_locations_cost_floor_n_over_l_plus_one_and_every_location_loads(
    start_emulator, warehouse, monkeypatch, data
):
    limit = STREAMS["sales_locations"].max_limit
    assert limit == 1000  # the spec's maximum for GET /sales/v1/locations
    for n in (0, limit - 1, limit, limit + 1):
        server = server_with(start_emulator, data, sales_locations=n, sales_days_back=0,
                             sales_days_ahead=0)  # fmt: skip
        point_at(monkeypatch, server)
        run_sync(("sales_locations",), project=resolve())
        assert requests_to(server, "/sales/v1/locations") == n // limit + 1, f"N={n} ({data})"
        served = {loc["id"]: loc for loc in sales_of(server.state.dataset).locations}
        assert len(served) == n
        loaded = query(warehouse, "select id, name, is_active from connecteam.sales_locations "
                       "where not coalesce(is_deleted, false)") if n else []  # fmt: skip
        assert {row[0]: (row[1], row[2]) for row in loaded} == {
            k: (v.get("name"), v.get("isActive")) for k, v in served.items()
        }, f"N={n} ({data})"


def window_of_daily_sales() -> tuple[str, str]:
    """The daily-sales range of a run at the tests' clock, by the registry's window."""
    window = STREAMS["daily_sales"].window
    assert window is not None
    today = datetime.fromtimestamp(NOW, UTC).date()
    first = today - timedelta(days=window.days_back)
    return first.isoformat(), (today + timedelta(days=window.days_ahead)).isoformat()


def test_daily_sales_load_the_window_in_one_request_keeping_the_providers_nulls(
    start_emulator, warehouse, monkeypatch
):
    server = server_with(start_emulator, sales_locations=3, sales_days_back=50,
                         sales_days_ahead=50)  # fmt: skip
    point_at(monkeypatch, server)
    summary = run_sync(("daily_sales",), project=resolve())
    assert requests_to(server, "/sales/v1/daily-sales") == 1
    first, last = window_of_daily_sales()
    served = {f"{e['locationId']}:{e['date']}": e
              for e in sales_of(server.state.dataset).daily_sales
              if first <= e["date"] <= last}  # fmt: skip
    assert summary.rows["daily_sales"] == len(served) > 0
    loaded = {
        key: (location, day, total, projected)
        for key, location, day, total, projected in query(
            warehouse,
            "select daily_sales_key, location_id, date, total_sales, projected_sales "
            "from connecteam.daily_sales",
        )
    }
    assert loaded == {
        key: (e["locationId"], e["date"], e["totalSales"], e["projectedSales"])
        for key, e in served.items()
    }
    # the emulator's days ahead carry a projection only: the provider's null stays null
    future = [v for v in loaded.values() if date.fromisoformat(v[1]) > date.fromisoformat(first)
              and v[2] is None]  # fmt: skip
    assert future and all(v[3] is not None for v in future)

    assert run_sync(("daily_sales",), project=resolve()).rows["daily_sales"] == 0  # nothing changed
    entries = sales_of(server.state.dataset).daily_sales
    removed = next(e for e in entries if first <= e["date"] <= last)
    entries.remove(removed)  # the provider no longer has that day's aggregation
    run_sync(("daily_sales",), project=resolve())
    gone_key = f"{removed['locationId']}:{removed['date']}"
    marked = query(
        warehouse,
        "select daily_sales_key from connecteam.daily_sales where is_deleted and deleted_at = "
        f"{int(NOW)}",
    )
    assert marked == [(gone_key,)]


def test_daily_sales_out_of_the_window_are_left_as_they_were(
    start_emulator, warehouse, monkeypatch
):
    """An entry older than the window is neither asked for nor marked deleted."""
    server = server_with(start_emulator, sales_locations=1, sales_days_back=80,
                         sales_days_ahead=0)  # fmt: skip
    point_at(monkeypatch, server)
    run_sync(("daily_sales",), project=resolve())
    first, _ = window_of_daily_sales()
    ((older,),) = query(
        warehouse, f"select count(*) from connecteam.daily_sales where date < '{first}'"
    )
    assert older == 0
    ((deleted,),) = query(warehouse, "select count(*) from connecteam.daily_sales where is_deleted")
    assert deleted == 0
