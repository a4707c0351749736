"""The pay and leave streams (``pay_rates``, ``pay_rule_policies``, ``time_off_policy_types``,
``time_off_balances``, ``scheduler_unavailabilities``) against the emulator (a real HTTP server):
N = 0, L-1, L, L+1 records cost floor(N/L)+1 requests per parent, counted at the emulator, and
the sync loads exactly the emulator's records; a second unchanged run loads nothing new; what the
provider stops returning is marked deleted; balances are one row per user x policy per sync day.
"""

from __future__ import annotations

import pytest
from conftest import ANCHOR, point_at, query

from emulator.domains.pay_leave.data import pay_leave_of
from emulator.operations_data import OperationsConfig
from pipelines import run_sync
from sources.configuration import resolve
from sources.connecteam.registry import STREAMS
from sources.connecteam.resources.pay import pay_rate_rows

SMALL = {"time_clocks": 1, "time_activities": 0, "form_submissions": 0, "jobs": 4,
         "time_off_requests": 0, "task_boards": 0, "tasks": 0, "pay_rates": 0,
         "pay_rule_policies": 0, "time_off_balances": 0, "unavailabilities": 0}  # fmt: skip


def server_with(start_emulator, **sizes: int):
    return start_emulator(users=6, forms=1, schedulers=1, shifts=0, anchor=ANCHOR,
                          operations=OperationsConfig(**{**SMALL, **sizes}))  # fmt: skip


def loaded_keys(warehouse, stream: str, key: str) -> set[str]:
    """The live keys of ``connecteam.<stream>``; none when no record ever created the table."""
    sql = ("select count(*) from information_schema.tables "
           f"where table_schema = 'connecteam' and table_name = '{stream}'")  # fmt: skip
    (exists,) = query(warehouse, sql)[0]
    if not exists:
        return set()
    live = "not coalesce(is_deleted, false)" if stream != "time_off_balances" else "true"
    return {
        str(r[0]) for r in query(warehouse, f"select {key} from connecteam.{stream} where {live}")
    }


def requests_to(server, fragment: str) -> int:
    counts = server.stats()["requests"]
    return sum(n for path, n in counts.items() if fragment in path)


@pytest.mark.parametrize(
    ("stream", "size", "path"),
    [
        ("pay_rates", "pay_rates", "/pay-rates/v1/pay-rates"),
        ("time_off_balances", "time_off_balances", "/balances"),
        ("scheduler_unavailabilities", "unavailabilities", "/unavailabilities"),
    ],
)
def test_requests_are_floor_n_over_l_plus_one_and_every_record_loads(
    start_emulator, warehouse, monkeypatch, stream, size, path
):
    limit = STREAMS[stream].max_limit
    assert limit is not None
    for n in (0, limit - 1, limit, limit + 1):
        server = server_with(start_emulator, **{size: n})
        point_at(monkeypatch, server)
        run_sync((stream,), project=resolve())
        pay_leave = pay_leave_of(server.state.dataset)
        if stream == "pay_rates":
            parents = 1
            expected = {r["pay_rate_key"] for item in pay_leave.pay_rates
                        for r in pay_rate_rows(item)}  # fmt: skip
            key = "pay_rate_key"
        elif stream == "time_off_balances":
            parents = len(pay_leave.balances)  # one listing per policy type
            expected = {f"{t}:{b['policyId']}:{b['userId']}"
                        for t, rows in pay_leave.balances.items() for b in rows}  # fmt: skip
            key = "policy_type_id || ':' || policy_id || ':' || user_id"
        else:
            parents = 1
            expected = {u["id"] for rows in pay_leave.unavailabilities.values() for u in rows}
            key = "id"
        assert requests_to(server, path) == parents * (n // limit + 1), f"{stream}: N={n} L={limit}"
        loaded = loaded_keys(warehouse, stream, key)
        assert loaded == {str(k) for k in expected}, f"{stream}: N={n}"
        warehouse.unlink()


def test_unpaged_listings_cost_one_request_and_a_second_run_loads_only_the_day_s_balances(
    start_emulator, warehouse, monkeypatch
):
    server = server_with(start_emulator, pay_rates=9, pay_rule_policies=3, time_off_balances=4,
                         unavailabilities=5)  # fmt: skip
    point_at(monkeypatch, server)
    streams = ("scheduler_unavailabilities", "pay_rates", "pay_rule_policies",
               "time_off_policy_types", "time_off_balances")  # fmt: skip
    first = run_sync(streams, project=resolve())
    assert requests_to(server, "/pay-rule-policies") == 1
    assert requests_to(server, "/time-off/v1/policy-types") == 4  # the listing + 3 balances
    assert first.rows["pay_rule_policies"] == 3
    assert first.rows["time_off_policy_types"] == 3
    # 9 rate items of 6 users (every third with job and sub-job rates)
    assert (
        first.rows["pay_rates"]
        == query(warehouse, "select count(*) from connecteam.pay_rates")[0][0]
    )
    second = run_sync(streams, project=resolve())
    assert second.rows == {"scheduler_unavailabilities": 0, "pay_rates": 0, "pay_rule_policies": 0,
                           "time_off_policy_types": 0, "time_off_balances": 12}  # fmt: skip
    # the day's balances were merged in place: still one row per user x policy
    assert query(warehouse, "select count(*), count(distinct as_of_date) "
                            "from connecteam.time_off_balances") == [(12, 1)]  # fmt: skip


def test_rates_the_provider_stops_returning_are_marked_deleted(
    start_emulator, warehouse, monkeypatch
):
    server = server_with(start_emulator, pay_rates=6, unavailabilities=4)
    point_at(monkeypatch, server)
    run_sync(("pay_rates", "scheduler_unavailabilities"), project=resolve())
    pay_leave = pay_leave_of(server.state.dataset)
    removed = pay_leave.pay_rates.pop()
    gone_unavailability = pay_leave.unavailabilities[9000].pop()
    run_sync(("pay_rates", "scheduler_unavailabilities"), project=resolve())
    deleted = {
        r[0]
        for r in query(warehouse, "select pay_rate_key from connecteam.pay_rates where is_deleted")
    }
    assert deleted == {r["pay_rate_key"] for r in pay_rate_rows(removed)}
    assert query(
        warehouse, "select id from connecteam.scheduler_unavailabilities where is_deleted"
    ) == [(gone_unavailability["id"],)]
