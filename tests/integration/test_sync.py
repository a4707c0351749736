"""The sync job end to end: the emulator as a real server, a real DuckDB warehouse file."""

from __future__ import annotations

import pytest
from conftest import API_KEY, CORE, assert_keys_unique, point_at, query

from pipelines import run_sync
from sources.configuration import resolve
from sources.connecteam import ConnecteamAPIError

SIZE = {"users": 1300, "forms": 7, "schedulers": 3, "shifts": 2600}


def warehouse_users(warehouse) -> dict[int, tuple]:
    return {
        r[0]: r[1:]
        for r in query(
            warehouse, "select user_id, last_name, is_archived, modified_at from connecteam.users"
        )
    }


def emulator_users(server) -> dict[int, tuple]:
    return {
        u["userId"]: (u["lastName"], u["isArchived"], u["modifiedAt"])
        for u in server.state.dataset.users.values()
    }


def emulator_shift_keys(server) -> set[tuple[int, str]]:
    return {(sid, r["id"]) for sid, rows in server.state.dataset.shifts.items() for r in rows}


def live_shift_keys(warehouse) -> set[tuple[int, str]]:
    return set(
        query(warehouse, "select scheduler_id, id from connecteam.shifts where not is_deleted")
    )


def test_full_then_incremental_then_changes(start_emulator, warehouse, monkeypatch):
    server = start_emulator(**SIZE)
    point_at(monkeypatch, server)

    first = run_sync(CORE, project=resolve())
    documents = len(server.state.dataset.user_documents)
    assert documents > 100
    assert first.rows == {
        "users": 1300, "forms": 7, "schedulers": 3, "shifts": 2600, "user_documents": documents
    }  # fmt: skip
    assert warehouse_users(warehouse) == emulator_users(server)  # archived users too
    assert live_shift_keys(warehouse) == emulator_shift_keys(server)
    assert_keys_unique(warehouse)

    second = run_sync(CORE, project=resolve())
    assert second.rows == {
        "users": 0, "forms": 0, "schedulers": 0, "shifts": 0, "user_documents": 0
    }  # fmt: skip
    # the streams wrote nothing; the only write is shift_coverage's record of the pull
    for load_id in second.load_ids:
        for table in CORE:
            sql = f"select count(*) from connecteam.{table} where _dlt_load_id = '{load_id}'"
            assert query(warehouse, sql) == [(0,)], table
    assert second.requests["/users/v1/users"] == 1  # only users modified since the last run
    assert_keys_unique(warehouse)

    touched = server.control("mutate", {"users": 9, "shifts": 11, "documents": 4})
    third = run_sync(CORE, project=resolve())
    assert third.rows["users"] == 9
    assert third.rows["shifts"] == 11
    assert third.rows["user_documents"] == 4
    statuses = dict(query(warehouse, "select id, status from connecteam.user_documents"))
    for doc_id in touched["documents"]:
        assert statuses[doc_id] == server.state.dataset.user_documents[doc_id]["status"]
    assert third.rows["forms"] == 0 and third.rows["schedulers"] == 0
    assert warehouse_users(warehouse) == emulator_users(server)
    edited = {(sid, sid_id) for sid, sid_id in touched["shifts"]}
    titles = dict(
        ((r[0], r[1]), r[2])
        for r in query(warehouse, "select scheduler_id, id, title from connecteam.shifts")
    )
    for sid, shift_id in edited:
        expected = next(r["title"] for r in server.state.dataset.shifts[sid] if r["id"] == shift_id)
        assert titles[(sid, shift_id)] == expected and "edited" in expected
    assert_keys_unique(warehouse)


def test_deleted_shift_is_marked_deleted_not_dropped(start_emulator, warehouse, monkeypatch):
    server = start_emulator(**SIZE)
    point_at(monkeypatch, server)
    run_sync(CORE, project=resolve())
    before = query(warehouse, "select count(*) from connecteam.shifts")[0][0]

    touched = server.control("mutate", {"delete_shifts": 4, "new_shifts": 3})
    summary = run_sync(CORE, project=resolve())
    assert summary.rows["shifts"] == 4 + 3
    deleted = {tuple(k) for k in touched["deleted_shifts"]}
    rows = query(
        warehouse,
        "select scheduler_id, id, is_deleted, deleted_at, title from connecteam.shifts "
        "where is_deleted",
    )
    assert {(r[0], r[1]) for r in rows} == deleted
    assert all(r[3] is not None and r[4] for r in rows)  # data kept, deletion time set
    assert query(warehouse, "select count(*) from connecteam.shifts")[0][0] == before + 3
    assert live_shift_keys(warehouse) == emulator_shift_keys(server)
    assert_keys_unique(warehouse)

    again = run_sync(CORE, project=resolve())  # a deleted row is not re-marked on every run
    assert again.rows["shifts"] == 0


def test_a_user_changed_in_the_second_of_the_newest_loaded_change_is_loaded(
    start_emulator, warehouse, monkeypatch
):
    """The users cursor overlaps its boundary second: the API's ``modifiedAt`` filter is
    exclusive, and the provider stamps changes in whole seconds."""
    server = start_emulator(users=30, same_second_changes=True)
    point_at(monkeypatch, server)
    assert run_sync(["users"], project=resolve()).rows["users"] == 30
    server.control("mutate", {"user_ids": [1003]})
    assert run_sync(["users"], project=resolve()).rows["users"] == 1
    newest = server.state.dataset.users[1003]["modifiedAt"]

    server.control("mutate", {"user_ids": [1005, 1003]})  # the same second, after the pull
    assert {server.state.dataset.users[u]["modifiedAt"] for u in (1003, 1005)} == {newest}
    again = run_sync(["users"], project=resolve())
    assert again.rows["users"] == 2  # both, though neither modifiedAt is after the cursor
    assert again.requests["/users/v1/users"] == 1
    assert warehouse_users(warehouse) == emulator_users(server)
    kiosk = dict(query(warehouse, "select user_id, kiosk_code from connecteam.users"))
    assert all(kiosk[u] == server.state.dataset.users[u]["kioskCode"] for u in (1003, 1005))

    quiet = run_sync(
        ["users"], project=resolve()
    )  # the boundary second again: unchanged users are not reloaded
    assert quiet.rows["users"] == 0 and quiet.load_ids == []
    assert query(warehouse, "select count(*), count(distinct user_id) from connecteam.users") == [
        (30, 30)
    ]


def test_fault_mode_ends_with_the_same_warehouse(start_emulator, tmp_path, monkeypatch):
    clean = start_emulator(**SIZE)
    faulty = start_emulator(fault_rate=0.25, fault_seed=11, **SIZE)
    results = {}
    for name, server in (("clean", clean), ("faulty", faulty)):
        path = tmp_path / name / "warehouse.duckdb"
        monkeypatch.setenv("DESTINATION__DUCKDB__CREDENTIALS", str(path))
        point_at(monkeypatch, server)
        summary = run_sync(CORE, project=resolve())
        results[name] = (path, summary)
    faulty_summary = results["faulty"][1]
    assert faulty_summary.retries > 0
    assert sum(faulty.stats()["faults"].values()) > 0
    for table, key in (
        ("users", "user_id"),
        ("forms", "form_id"),
        ("schedulers", "scheduler_id"),
        ("shifts", "scheduler_id, id"),
    ):
        columns = [
            r[0]
            for r in query(results["clean"][0], f"describe connecteam.{table}")
            if not r[0].startswith("_dlt")
        ]
        select = f"select {', '.join(columns)} from connecteam.{table} order by {key}"
        clean_rows = query(results["clean"][0], select)
        assert clean_rows == query(results["faulty"][0], select), table
        assert len(clean_rows) > 0


def test_oauth_client_credentials(start_emulator, warehouse, monkeypatch):
    server = start_emulator(users=40, forms=2, schedulers=1, shifts=30)
    monkeypatch.setenv("SOURCES__CONNECTEAM__BASE_URL", server.url)
    monkeypatch.setenv("SOURCES__CONNECTEAM__CLIENT_ID", "emulator-client")
    monkeypatch.setenv("SOURCES__CONNECTEAM__CLIENT_SECRET", "emulator-secret")
    summary = run_sync(CORE, project=resolve())
    documents = len(server.state.dataset.user_documents)
    assert summary.rows == {
        "users": 40, "forms": 2, "schedulers": 1, "shifts": 30, "user_documents": documents
    }  # fmt: skip


def test_oauth_client_without_a_needed_scope_fails_clearly(start_emulator, warehouse, monkeypatch):
    clients = {"narrow": {"secret": "s3cret-narrow", "scopes": ["users.read"]}}
    server = start_emulator(users=10, oauth_clients=clients)
    monkeypatch.setenv("SOURCES__CONNECTEAM__BASE_URL", server.url)
    monkeypatch.setenv("SOURCES__CONNECTEAM__CLIENT_ID", "narrow")
    monkeypatch.setenv("SOURCES__CONNECTEAM__CLIENT_SECRET", "s3cret-narrow")
    with pytest.raises(Exception) as caught:
        run_sync(CORE, project=resolve())
    text = "".join(str(e) for e in _chain(caught.value))
    assert "/oauth/v1/token" in text and "403" in text
    # the streams beyond users.read are named with their scopes
    assert "scope forms.read (needed by stream forms)" in text
    assert "scope schedule.read (needed by stream schedulers, shifts)" in text
    assert "users.read" not in text.split("answered HTTP 403")[1]  # granted: not blamed
    assert "s3cret-narrow" not in text


def test_pacing_keeps_a_sync_within_the_budget_free_of_429(start_emulator, warehouse, monkeypatch):
    # 2600 users and 2600 shift rows: 6 + 1 + 1 + 3*~2 ≈ 14 requests; budget 4 per 1-second window.
    server = start_emulator(
        users=2600, forms=2, schedulers=3, shifts=2600, minute_limit=4, window_seconds=1
    )
    point_at(monkeypatch, server)
    summary = run_sync(CORE, project=resolve())
    stats = server.stats()
    assert summary.total_requests >= 12
    assert stats["statuses"].get("429", 0) == 0
    assert summary.throttled == 0 and summary.paced_seconds > 0


def test_unpaced_client_would_have_hit_429(start_emulator):
    """Control for the pacing test: the same budget does answer 429 to a client that ignores it."""
    import httpx

    server = start_emulator(users=10, minute_limit=4, window_seconds=30)
    # 9 = 2 x 4 + 1: however a window boundary splits the burst, one window gets 5 or more
    codes = [
        httpx.get(server.url + "/users/v1/users", headers={"X-API-KEY": API_KEY}).status_code
        for _ in range(9)
    ]
    assert 429 in codes


def test_refused_request_names_endpoint_and_status(start_emulator, warehouse, monkeypatch):
    server = start_emulator(users=10)
    point_at(monkeypatch, server, key="sk-live-WRONG-0042")
    with pytest.raises(Exception) as caught:
        run_sync(["users"], project=resolve())
    errors = list(_chain(caught.value))
    api_errors = [e for e in errors if isinstance(e, ConnecteamAPIError)]
    assert api_errors and api_errors[0].status == 401
    assert api_errors[0].endpoint == "/users/v1/users"
    assert all("sk-live-WRONG-0042" not in str(e) for e in errors)


def _chain(exc: BaseException):
    while exc is not None:
        yield exc
        exc = exc.__cause__ or exc.__context__


def test_with_paging_total_a_quiet_night_costs_one_shift_request_per_scheduler(
    start_emulator, warehouse, monkeypatch
):
    server = start_emulator(paging_total=True, **SIZE)
    point_at(monkeypatch, server)
    full = run_sync(["schedulers", "shifts"], project=resolve())
    shifts_path = "/scheduler/v1/schedulers/{schedulerId}/shifts"
    assert full.requests[shifts_path] == sum(
        -(-len(rows) // 500) for rows in server.state.dataset.shifts.values()
    )  # ceil(N/L) per scheduler with a total

    quiet = run_sync(["schedulers", "shifts"], project=resolve())
    assert quiet.requests[shifts_path] == 3 and quiet.rows["shifts"] == 0

    touched = server.control("mutate", {"shifts": 12, "new_shifts": 4})
    changed = run_sync(["schedulers", "shifts"], project=resolve())
    assert changed.requests[shifts_path] == 3  # the changes fit on the first page of each
    assert changed.rows["shifts"] == 16
    titles = dict(
        ((r[0], r[1]), r[2])
        for r in query(warehouse, "select scheduler_id, id, title from connecteam.shifts")
    )
    assert all("edited" in titles[tuple(k)] for k in touched["shifts"])
    assert all(tuple(k) in titles for k in touched["new_shifts"])

    gone = server.control("mutate", {"delete_shifts": 2})
    after = run_sync(["schedulers", "shifts"], project=resolve())
    assert after.requests[shifts_path] > 3  # paging.total disagreed: full passes found them
    deleted = set(
        query(warehouse, "select scheduler_id, id from connecteam.shifts where is_deleted")
    )
    assert deleted == {tuple(k) for k in gone["deleted_shifts"]}
    assert live_shift_keys(warehouse) == emulator_shift_keys(server)
    assert query(
        warehouse, "select count(*) = count(distinct (scheduler_id, id)) from connecteam.shifts"
    ) == [(True,)]
