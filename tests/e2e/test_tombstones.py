"""Full-list streams mark what the provider stops returning: the emulator (a real server) removes
records, the next sync merges the loaded rows again with ``is_deleted`` and ``deleted_at``
(epoch seconds, UTC; the suite pins the clock), their data kept. Only a complete listing marks
anything: a listing that fails, or a board whose tasks could not be listed, marks nothing."""

from __future__ import annotations

import pytest
from conftest import NOW, point_at, query

from core.clock import now as clock_now
from emulator.operations_data import TASK_BOARD_BASE, OperationsConfig
from pipelines import run_sync
from sources.configuration import resolve
from sources.connecteam.listing import complete_listing, confirmed_gone

WIDE_TIME_OFF = {"time_off_days_back": 182, "time_off_days_ahead": 182}
"""Every seeded time-off request (-150..+124 days) lies inside this window."""
FULL_LISTS = {
    # stream: (key column, streams synced with it, sync options)
    "schedulers": ("scheduler_id", (), {}),
    "forms": ("form_id", (), {}),
    "user_documents": ("id", (), {}),
    "time_clocks": ("id", (), {}),
    "task_boards": ("id", (), {}),
    "tasks": ("id", ("task_boards",), {}),
    "jobs": ("job_id", (), {}),
    "time_off_requests": ("id", (), WIDE_TIME_OFF),
    "user_custom_field_definitions": ("id", (), {}),
}


def server_for(start_emulator, **operations):
    sizes = {"time_clocks": 3, "time_activities": 0, "form_submissions": 0, "jobs": 8,
             "time_off_requests": 20, "task_boards": 3, "tasks": 12, **operations}  # fmt: skip
    return start_emulator(users=40, forms=4, schedulers=3, shifts=10,
                          anchor=int(clock_now()) // 86_400 * 86_400,
                          operations=OperationsConfig(**sizes))  # fmt: skip


def marked(warehouse, table: str, key: str) -> dict[str, int | None]:
    """``{key: deleted_at}`` of the rows marked deleted."""
    rows = query(warehouse, f"select {key}, deleted_at from connecteam.{table} where is_deleted")
    return {str(k): at for k, at in rows}


def removed_keys(warehouse, stream: str, ids: list) -> set[str]:
    """The warehouse keys a removal at the emulator takes away: a task is ``[board, id]``; a
    job goes with its sub-jobs."""
    keys = {str(i[1]) if isinstance(i, list) else str(i) for i in ids}
    if stream == "jobs":
        in_list = ", ".join(f"'{k}'" for k in keys)
        subs = query(
            warehouse, f"select job_id from connecteam.jobs where parent_job_id in ({in_list})"
        )
        keys |= {s for (s,) in subs}
    return keys


def test_a_job_and_a_task_removed_at_the_emulator_are_marked_deleted(
    start_emulator, warehouse, monkeypatch
):
    server = server_for(start_emulator)
    point_at(monkeypatch, server)
    streams = ("jobs", "task_boards", "tasks")
    run_sync(streams, project=resolve())
    provider_deleted = set(marked(warehouse, "jobs", "job_id"))  # isDeleted at the provider
    assert all(at is None for at in marked(warehouse, "jobs", "job_id").values())

    touched = server.control("mutate", {"remove": {"jobs": 1, "tasks": 1}})
    gone_jobs = removed_keys(warehouse, "jobs", touched["removed_jobs"])
    gone_task = removed_keys(warehouse, "tasks", touched["removed_tasks"])
    summary = run_sync(streams, project=resolve())
    assert summary.rows == {"jobs": len(gone_jobs), "task_boards": 0, "tasks": 1}
    jobs = marked(warehouse, "jobs", "job_id")
    assert {k for k, at in jobs.items() if at is not None} == gone_jobs - provider_deleted
    assert all(jobs[k] == int(NOW) for k in gone_jobs - provider_deleted)
    assert set(jobs) == gone_jobs | provider_deleted
    assert marked(warehouse, "tasks", "id") == dict.fromkeys(gone_task, int(NOW))
    (title,) = query(warehouse, f"select title from connecteam.tasks where id = '{min(gone_task)}'")
    assert title[0]  # the row keeps its data

    again = run_sync(streams, project=resolve())  # a marked row is not marked again
    assert set(again.rows.values()) == {0}
    # the run's only write is task_coverage's record of the complete listings
    (load_id,) = again.load_ids
    for table in streams:
        sql = f"select count(*) from connecteam.{table} where _dlt_load_id = '{load_id}'"
        assert query(warehouse, sql) == [(0,)], table
    written = f"select count(*) from connecteam.task_coverage where _dlt_load_id = '{load_id}'"
    assert query(warehouse, written)[0][0] > 0


@pytest.mark.parametrize("stream", list(FULL_LISTS))
def test_each_full_list_stream_marks_what_the_provider_stopped_returning(
    start_emulator, warehouse, monkeypatch, stream
):
    key, with_streams, options = FULL_LISTS[stream]
    server = server_for(start_emulator)
    point_at(monkeypatch, server)
    streams = (*with_streams, stream)
    first = run_sync(streams, **options, project=resolve())
    assert first.rows[stream] > 1
    assert marked(warehouse, stream, key) == {} or stream == "jobs"
    before = set(marked(warehouse, stream, key))

    touched = server.control("mutate", {"remove": {stream: 1}})
    gone = removed_keys(warehouse, stream, touched[f"removed_{stream}"])
    assert len(gone) >= 1
    summary = run_sync(streams, **options, project=resolve())
    assert summary.rows[stream] == len(gone - before)
    now_marked = marked(warehouse, stream, key)
    assert set(now_marked) - before == gone - before
    assert all(now_marked[k] == int(NOW) for k in gone - before)
    live = query(
        warehouse,
        f"select count(*) from connecteam.{stream} where not coalesce(is_deleted, false)",
    )
    assert live == [(first.rows[stream] - len(before | gone),)]

    assert run_sync(streams, **options, project=resolve()).rows[stream] == 0


def test_a_record_that_comes_back_is_live_again(start_emulator, warehouse, monkeypatch):
    server = server_for(start_emulator)
    point_at(monkeypatch, server)
    run_sync(("schedulers",), project=resolve())
    removed = server.state.dataset.schedulers.pop(9001)
    assert run_sync(("schedulers",), project=resolve()).rows["schedulers"] == 1
    assert set(marked(warehouse, "schedulers", "scheduler_id")) == {"9001"}
    server.state.dataset.schedulers[9001] = removed
    assert run_sync(("schedulers",), project=resolve()).rows["schedulers"] == 1
    assert marked(warehouse, "schedulers", "scheduler_id") == {}
    assert query(
        warehouse, "select deleted_at from connecteam.schedulers where scheduler_id = 9001"
    ) == [(None,)]


def test_a_listing_that_fails_on_a_later_page_marks_nothing(start_emulator, warehouse, monkeypatch):
    server = server_for(start_emulator, jobs=600)  # two pages of at most 500
    point_at(monkeypatch, server)
    run_sync(("jobs", "task_boards"), project=resolve())
    provider_deleted = set(marked(warehouse, "jobs", "job_id"))
    touched = server.control("mutate", {"remove": {"jobs": 3}})
    server.state.options.failing_paths = {"/jobs/v1/jobs?offset=500": 503}

    failed = run_sync(("jobs", "task_boards"), project=resolve())
    assert set(failed.failed_streams) == {"jobs"}
    assert "503" in failed.failed_streams["jobs"]
    assert failed.requests["/jobs/v1/jobs"] > 1  # the first page was read
    assert set(marked(warehouse, "jobs", "job_id")) == provider_deleted

    server.state.options.failing_paths = {}
    healed = run_sync(("jobs", "task_boards"), project=resolve())
    gone = removed_keys(warehouse, "jobs", touched["removed_jobs"])
    assert healed.failed_streams == {} and healed.rows["jobs"] == len(gone - provider_deleted)
    assert set(marked(warehouse, "jobs", "job_id")) == provider_deleted | gone


def test_tasks_of_a_board_whose_listing_failed_stay_live_until_the_board_is_gone(
    start_emulator, warehouse, monkeypatch
):
    server = server_for(start_emulator, task_boards=2, tasks=10)
    point_at(monkeypatch, server)
    run_sync(("task_boards", "tasks"), project=resolve())
    ops = server.state.dataset.operations
    a, b = TASK_BOARD_BASE, TASK_BOARD_BASE + 1
    gone_a = ops.tasks[a].pop(0)["id"]
    ops.tasks[b].pop(0)
    server.state.options.failing_paths = {f"/tasks/v1/taskboards/{b}/tasks": 404}
    coverage = "select task_board_id, pulled_at from connecteam.task_coverage order by 1"
    assert query(warehouse, coverage) == [(a, int(NOW)), (b, int(NOW))]

    monkeypatch.setenv("WFM_SYNC_NOW", str(NOW + 3600))  # an hour later
    summary = run_sync(("task_boards", "tasks"), project=resolve())
    assert summary.failed_streams == {}
    assert summary.skipped_parents == [f"tasks: taskBoardId {b}"]
    assert set(marked(warehouse, "tasks", "id")) == {gone_a}  # board b: nothing concluded
    # the API's rows of board b are still as of the first run: its tasks were not listed
    assert query(warehouse, coverage) == [(a, int(NOW) + 3600), (b, int(NOW))]

    del ops.task_boards[b]  # the board is gone: its listing is complete, without it
    closing = run_sync(("task_boards", "tasks"), project=resolve())
    assert closing.rows == {"task_boards": 1, "tasks": 10}
    assert set(marked(warehouse, "task_boards", "id")) == {str(b)}
    b_tasks = {
        r[0] for r in query(warehouse, f"select id from connecteam.tasks where task_board_id = {b}")
    }
    assert set(marked(warehouse, "tasks", "id")) == {gone_a} | b_tasks
    assert query(warehouse, coverage)[0] == (a, int(NOW) + 3600)


def test_time_off_requests_outside_the_window_are_not_marked(
    start_emulator, warehouse, monkeypatch
):
    server = server_for(start_emulator, time_off_requests=60)
    point_at(monkeypatch, server)
    wide = run_sync(("time_off_requests",), **WIDE_TIME_OFF, project=resolve())
    assert wide.rows["time_off_requests"] == 60
    narrow = run_sync(
        ("time_off_requests",), time_off_days_back=10, time_off_days_ahead=10, project=resolve()
    )
    assert narrow.rows["time_off_requests"] == 0  # unlisted because outside, not deleted
    assert marked(warehouse, "time_off_requests", "id") == {}


def test_a_listing_is_consistent_only_when_its_total_agrees_or_one_answer_held_it():
    page = [{"id": 1}, {"id": 2}]
    # several pages without a total: unknown until a second pass agrees
    assert complete_listing([(page, None), ([{"id": 3}], None)]) == ([*page, {"id": 3}], None)
    assert complete_listing([(page, None)])[1] is True  # one answer is one view
    assert complete_listing([(page, 3)])[1] is False  # one answer, yet a record missing
    assert complete_listing([(page, 3), ([{"id": 3}], 3)])[1] is True
    assert complete_listing([(page, 4), ([{"id": 3}], 4)])[1] is False  # one slipped by
    assert complete_listing([(page, 2), ([{"id": 3}], 3)])[1] is False  # changed while paging
    counted: list[int] = []
    complete_listing([(page, None)], counted.append)
    assert counted == [2]


def test_what_looks_gone_is_confirmed_by_a_second_pass_only_when_it_agrees():
    seen = {"1", "3"}
    assert confirmed_gone("s", {"2"}, seen, True) == {"2"}
    assert confirmed_gone("s", {"2"}, seen, False) == set()
    assert confirmed_gone("s", {"2"}, seen, None) == set()  # no second pass possible
    assert confirmed_gone("s", {"2"}, seen, None, lambda gone: {"1", "3"}) == {"2"}
    # the second pass shows a record the first skipped: the listing moved, nothing is marked
    assert confirmed_gone("s", {"2"}, seen, None, lambda gone: {"1", "2", "3"}) == set()
    asked: list[set[str]] = []
    assert confirmed_gone("s", set(), seen, None, lambda gone: asked.append(gone) or seen) == set()
    assert asked == []  # nothing looked gone: no second pass was asked for
    confirmed_gone("s", {"2", "4"}, seen, None, lambda gone: asked.append(gone) or seen)
    assert asked == [{"2", "4"}]  # the pass is told what looks gone


@pytest.mark.slow  # a dbt build of every model
def test_staging_shows_the_mark_and_marts_stop_counting_deleted_records(
    start_emulator, warehouse, monkeypatch
):
    from pipelines.models import build_models

    server = server_for(start_emulator, tasks=30, time_off_requests=40)
    point_at(monkeypatch, server)
    streams = ("task_boards", "tasks", "time_off_requests")
    run_sync(streams, **WIDE_TIME_OFF, project=resolve())
    ops = server.state.dataset.operations
    board = TASK_BOARD_BASE
    counted = next(t for t in ops.tasks[board] if t["status"] != "draft")
    ops.tasks[board].remove(counted)
    approved = next(r for r in ops.time_off_requests if r["status"] == "approved")
    ops.time_off_requests.remove(approved)
    assert run_sync(streams, **WIDE_TIME_OFF, project=resolve()).rows == {
        "task_boards": 0, "tasks": 1, "time_off_requests": 1
    }  # fmt: skip

    assert build_models(warehouse, project=resolve()).failed == []
    for model, key, gone in (
        ("stg_connecteam__tasks", "task_id", counted["id"]),
        ("stg_connecteam__time_off_requests", "time_off_request_id", approved["id"]),
    ):
        flags = query(
            warehouse,
            f"select {key}, is_deleted, epoch(deleted_at) from staging.{model} where is_deleted",
        )
        assert flags == [(gone, True, NOW)], model
    due = query(
        warehouse,
        "select count(*) from connecteam.tasks where status <> 'draft' and not is_archived "
        "and due_date is not null and not is_deleted",
    )
    assert query(warehouse, "select sum(tasks_due) from marts.fct_task_completion_weekly") == due
    live_amount = query(
        warehouse,
        "select sum(duration_amount) from connecteam.time_off_requests "
        "where status = 'approved' and not is_deleted",
    )[0][0]
    amount = query(warehouse, "select sum(amount) from marts.fct_time_off")[0][0]
    assert amount == pytest.approx(live_amount, abs=0.01)
    assert approved["duration"]["amount"] > 0  # so counting it would show
