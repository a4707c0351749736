"""The resources' steps called alone, outside a sync: each against the emulator as a real HTTP
server on 127.0.0.1, with small hand-made inputs (the rows a window already holds, a cursor)."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import dlt
import pytest
from conftest import API_KEY, NOW

from core.progress import Progress
from sources.connecteam import ConnecteamClient
from sources.connecteam.arrow_rows import ArrowRows
from sources.connecteam.listing import content_hash
from sources.connecteam.registry import STREAMS
from sources.connecteam.resources.availability import (
    UNAVAILABILITY_COLUMNS,
    unavailability_tables,
)
from sources.connecteam.resources.forms import changed_submissions
from sources.connecteam.resources.scheduling import (
    SHIFT_COLUMNS,
    ShiftRun,
    changes_pass,
    full_pass,
    scheduler_shifts,
    shift_row,
)
from sources.connecteam.resources.tasks import board_tasks, outside_boards
from sources.connecteam.resources.time_clock import (
    ACTIVITY_COLUMNS,
    ActivityRun,
    clock_activities,
)
from sources.connecteam.resources.users import FreshUsers, user_cursor, user_tables
from sources.connecteam.windows import (
    Window,
    WindowDiff,
    day_start,
    shift_window,
    trailing_dates,
)

T = TypeVar("T")
R = TypeVar("R")

SCHEDULER = 9000
"""The emulator's first scheduler."""


def drain(steps: Generator[T, None, R]) -> tuple[list[T], R]:
    """Everything a generator step yields, and what it returns."""
    items: list[T] = []
    while True:
        try:
            items.append(next(steps))
        except StopIteration as stop:
            return items, stop.value


def ids(tables: list[Any]) -> list[str]:
    """The ``id`` column of every Arrow table, in order."""
    return ids_of(tables, "id")


def ids_of(tables: Iterable[Any], column: str) -> list[Any]:
    """The ``column`` of every Arrow table, in order."""
    return [i for table in tables for i in table.column(column).to_pylist()]


@contextmanager
def nothing_loaded(tmp_path: Path) -> Iterator[None]:
    """Inside the block, the current pipeline is a DuckDB one that has loaded nothing yet (the
    rows a step finds loaded: none)."""
    pipeline = dlt.pipeline("steps", destination="duckdb", pipelines_dir=str(tmp_path / "dlt"))
    try:
        yield
    finally:
        pipeline.deactivate()


@pytest.fixture
def shifts_account(start_emulator: Any) -> Iterator[tuple[ConnecteamClient, Window, list[dict]]]:
    """A client of a one-scheduler account with 30 shift rows and ``paging.total``, a window
    holding them all, and the provider's rows of that window (as warehouse rows)."""
    server = start_emulator(users=20, schedulers=1, shifts=30, paging_total=True)
    window = shift_window(NOW, 30, 90)
    params = {"startTime": window.start, "endTime": window.end}
    with ConnecteamClient(server.url, api_key=API_KEY) as client:
        pages = client.paginate(STREAMS["shifts"], params, {"schedulerId": SCHEDULER})
        rows = [shift_row(SCHEDULER, r) for page in pages for r in page]
        assert len(rows) == 30
        yield client, window, rows


def test_the_full_pass_diffs_a_window_with_the_rows_it_already_holds(shifts_account):
    client, window, rows = shifts_account
    unchanged, edited = rows[0], rows[1]
    live = {
        unchanged["id"]: (unchanged["content_hash"], True),
        edited["id"]: ("an older digest", True),
        "1:gone-inside": ("x", True),  # loaded, inside the window, no longer listed
        "2:gone-at-an-edge": ("y", False),  # overlaps the window only: never marked
    }
    diff = WindowDiff("shifts", "scheduler_id", SCHEDULER, live)
    totals: dict[str, bool] = {}
    arrow = ArrowRows("shifts", SHIFT_COLUMNS, client.stats.untyped_values)
    progress = Progress(f"shifts[{SCHEDULER}]")

    tables, (loaded, gone, newest) = drain(
        full_pass(client, SCHEDULER, window, diff, progress, totals, arrow)
    )

    assert ids(tables) == [r["id"] for r in rows[1:]]  # every row but the unchanged one
    assert loaded == 29
    assert gone == {"1:gone-inside"}
    assert newest == max(r.get("updateTime") or r["creationTime"] for r in rows)
    assert totals == {str(SCHEDULER): True}
    assert progress.rows == 30


def test_the_changes_pass_is_taken_only_when_the_total_proves_it_complete(shifts_account):
    client, window, rows = shifts_account
    newest = max(r.get("updateTime") or r["creationTime"] for r in rows)
    every = {r["id"]: (r["content_hash"], True) for r in rows}

    def changes(live: dict[str, tuple[str, bool]], since: int) -> Any:
        diff = WindowDiff("shifts", "scheduler_id", SCHEDULER, live)
        return changes_pass(client, SCHEDULER, window, since, diff, Progress("shifts"))

    # nothing changed since the newest update: the total equals the rows known
    assert changes(every, newest + 1) == ([], newest + 1)
    # a row known but no longer counted in the total (a deletion): the full pass is needed
    assert changes({**every, "1:deleted": ("x", True)}, newest + 1) is None
    # a row the warehouse lacks, updated since: loaded by the changes pass alone
    latest = max(rows, key=lambda r: r.get("updateTime") or r["creationTime"])
    without = {k: v for k, v in every.items() if k != latest["id"]}
    changed, seen = changes(without, newest)
    assert [r["id"] for r in changed] == [latest["id"]]
    assert seen == newest


def test_one_scheduler_step_notes_its_pass_and_skips_a_vanished_scheduler(
    shifts_account, tmp_path: Path
):
    client, _, rows = shifts_account
    arrow = ArrowRows("shifts", SHIFT_COLUMNS, client.stats.untyped_values)
    run = ShiftRun(client, 30, 90, None, NOW, arrow)

    with nothing_loaded(tmp_path):
        tables = list(scheduler_shifts(run, {"schedulerId": SCHEDULER}))

    assert sorted(ids(tables)) == sorted(r["id"] for r in rows)
    window = shift_window(NOW, 30, 90)
    assert run.pulled == {str(SCHEDULER): True}
    assert run.totals == {str(SCHEDULER): True}
    assert run.newest == {
        str(SCHEDULER): max(r.get("updateTime") or r["creationTime"] for r in rows)
    }
    assert run.coverage == [{
        "coverage_key": f"{SCHEDULER}:{window.start}:{window.end}", "scheduler_id": SCHEDULER,
        "window_from": window.start, "window_to": window.end, "pulled_at": NOW,
    }]  # fmt: skip

    with nothing_loaded(tmp_path):
        assert list(scheduler_shifts(run, {"schedulerId": 424242})) == []
    assert client.stats.skipped_parents == ["shifts: schedulerId 424242"]
    assert str(424242) not in run.pulled


def test_a_page_of_submissions_loads_what_changed_and_moves_the_newest_time():
    def submission(sid: str, at: Any, answers: str = "a") -> dict[str, Any]:
        return {"formSubmissionId": sid, "formId": 7, "submissionTimestamp": at,
                "answers": [{"questionType": "text", "value": answers}]}  # fmt: skip

    same, edited = submission("s1", NOW - 50), submission("s2", NOW - 40, "edited")
    new, in_millis = submission("s3", NOW - 30), submission("s4", NOW * 1000)
    known = {"s1": content_hash(same), "s2": content_hash(submission("s2", NOW - 40))}
    seen: dict[str, tuple[int | None, str]] = {}

    rows, newest = changed_submissions(
        [same, edited, new, in_millis], known, seen, NOW - 60, synced_at=NOW, latest=NOW + 86_400
    )

    assert [r["form_submission_id"] for r in rows] == ["s2", "s3", "s4"]
    assert {r["synced_at"] for r in rows} == {NOW}
    assert newest == NOW - 30  # a time in milliseconds moves no cursor
    assert seen == {
        "s1": (NOW - 50, content_hash(same)), "s2": (NOW - 40, content_hash(edited)),
        "s3": (NOW - 30, content_hash(new)), "s4": (None, content_hash(in_millis)),
    }  # fmt: skip


def test_the_users_step_moves_its_cursor_and_an_unchanged_account_loads_nothing(start_emulator):
    server = start_emulator(users=20)
    cursor = user_cursor({})
    assert cursor == {"modified_at": None, "at_newest": {}}
    with ConnecteamClient(server.url, api_key=API_KEY) as client:
        first = ids_of(user_tables(client, cursor), "userId")
        listed = [u for page in client.paginate(STREAMS["users"], {"userStatus": "all"})
                  for u in page]  # fmt: skip
        newest = max(u["modifiedAt"] for u in listed)
        assert sorted(first) == sorted(u["userId"] for u in listed)
        assert cursor["modified_at"] == newest
        assert cursor["at_newest"] == {
            str(u["userId"]): content_hash(u) for u in listed if u["modifiedAt"] == newest
        }
        before = client.stats.total_requests
        assert ids_of(user_tables(client, cursor), "userId") == []
        assert client.stats.total_requests == before + 1


def test_fresh_users_skip_only_the_unchanged_users_of_the_cursor_second():
    loaded = {"userId": 1, "modifiedAt": 100, "firstName": "Ada"}
    fresh = FreshUsers(100, {"1": content_hash(loaded)})
    edited = {"userId": 2, "modifiedAt": 100, "firstName": "Bo"}
    newer = {"userId": 3, "modifiedAt": 101, "firstName": "Cy"}
    untimed = {"userId": 4, "modifiedAt": None, "firstName": "Di"}

    assert fresh.page([loaded, edited]) == [edited]
    assert (fresh.top, fresh.seen) == (100, {"1": content_hash(loaded), "2": content_hash(edited)})
    assert fresh.page([newer, untimed]) == [newer, untimed]
    assert (fresh.top, fresh.seen) == (101, {"3": content_hash(newer)})


def test_one_board_step_notes_whether_its_tasks_were_listed_completely(start_emulator, tmp_path):
    server = start_emulator(users=20)
    covered: list[dict[str, Any]] = []
    unlisted: list[int] = []
    with ConnecteamClient(server.url, api_key=API_KEY) as client:
        boards = [b for page in client.paginate(STREAMS["task_boards"]) for b in page]
        with nothing_loaded(tmp_path):
            rows = [row for board in [*boards, {"id": 424242}]
                    for part in board_tasks(client, board, NOW, covered, unlisted)
                    for row in part]  # fmt: skip
        assert client.stats.skipped_parents == ["tasks: taskBoardId 424242"]
    assert covered == [{"task_board_id": int(b["id"]), "pulled_at": NOW} for b in boards]
    assert unlisted == [424242]
    assert rows and {r["task_board_id"] for r in rows} == {int(b["id"]) for b in boards}
    assert outside_boards(unlisted) == (
        "task_board_id is null or task_board_id not in (%s)",
        (424242,),
    )
    assert outside_boards([]) == ("true", ())


def test_one_scheduler_s_unavailabilities_step_loads_its_window_and_notes_it(
    start_emulator, tmp_path
):
    server = start_emulator(users=20, schedulers=1)
    window = shift_window(NOW, 30, 90)
    params = {"startTime": window.start, "endTime": window.end}
    pulled: dict[str, bool] = {}
    arrow = ArrowRows("scheduler_unavailabilities", UNAVAILABILITY_COLUMNS)
    step = (arrow, pulled, NOW, 30, 90, None)
    with ConnecteamClient(server.url, api_key=API_KEY) as client:
        endpoint = STREAMS["scheduler_unavailabilities"]
        pages = client.paginate(endpoint, params, {"schedulerId": SCHEDULER})
        listed = [r for page in pages for r in page]
        with nothing_loaded(tmp_path):
            tables = list(unavailability_tables(client, {"schedulerId": SCHEDULER}, *step))
            vanished = list(unavailability_tables(client, {"schedulerId": 424242}, *step))
        assert client.stats.skipped_parents == ["scheduler_unavailabilities: schedulerId 424242"]
    assert listed and sorted(ids(tables)) == sorted(str(r["id"]) for r in listed)
    assert vanished == []
    assert pulled == {str(SCHEDULER): True}


def test_one_time_clock_step_loads_its_window_and_writes_its_coverage_row(start_emulator, tmp_path):
    server = start_emulator(users=20)
    with ConnecteamClient(server.url, api_key=API_KEY) as client:
        clocks = [c for page in client.paginate(STREAMS["time_clocks"]) for c in page]
        arrow = ArrowRows("time_activities", ACTIVITY_COLUMNS)
        run = ActivityRun(client, 35, None, NOW, len(clocks), arrow)
        clock_id = int(clocks[0]["id"])
        with nothing_loaded(tmp_path):
            *tables, coverage = clock_activities(run, clocks[0])
            assert list(clock_activities(run, {"id": 424242})) == []
        assert client.stats.skipped_parents == ["time_activities: timeClockId 424242"]

    first, _ = trailing_dates(NOW, 35, None)
    rows = [r for table in tables for r in table.to_pylist()]
    assert rows and {r["time_clock_id"] for r in rows} == {clock_id}
    assert len({r["id"] for r in rows}) == len(rows)
    assert coverage.data == [{"time_clock_id": clock_id, "covered_from": day_start(first),
                              "window_from": day_start(first), "pulled_at": NOW}]  # fmt: skip
    assert run.pulled == {str(clock_id): True}
    assert run.coverage == {str(clock_id): day_start(first)}
