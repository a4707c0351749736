"""Tasks resources: ``task_boards`` (``GET /tasks/v1/taskboards``) and ``tasks``
(``GET /tasks/v1/taskboards/{taskBoardId}/tasks?status=all``), each merged on ``id``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import dlt
from dlt.sources import DltResource

from core.progress import Progress

from ..arrow_rows import BIGINT, JSON, hints
from ..client import ConnecteamClient
from ..contract import deletions_allowed
from ..errors import ParentNotFoundError
from ..fanout import in_parallel
from ..listing import complete_listing, confirmed_gone, live, second_pass
from ..loaded import live_keys, only_changed, vanished
from ..registry import STREAMS, TASK_COVERAGE_TABLE
from .common import DELETION_MARK, listing_tables, named_listing
from .run import Builders

logger = logging.getLogger("sources.connecteam")


TASK_COLUMNS: dict[str, str] = {
    "user_ids": JSON,
    "label_ids": JSON,
    "sub_tasks": JSON,
    "description": JSON,
    "start_time": BIGINT,
    "due_date": BIGINT,
    **DELETION_MARK,
}


TASK_COVERAGE_HINTS = dlt.mark.make_hints(
    table_name=TASK_COVERAGE_TABLE,
    primary_key="task_board_id",
    write_disposition="merge",
)
"""``task_coverage``: one row per task board, ``pulled_at`` (epoch seconds, UTC: the sync's
clock when the run began) of the latest run that listed its tasks completely. The API's rows
of a board's tasks are as of then (a task's row loads only when its record changed); a task
webhook event newer than that is applied over the API's status by the models."""


def tasks(client: ConnecteamClient, board_list: Callable[[], list[dict[str, Any]]]) -> DltResource:
    """``tasks``: every task of every board (``status=all``), merged on ``id``; only new or
    changed ones load. A loaded task no longer listed is marked deleted when its board's tasks
    were listed completely, or when its board is no longer listed at all; never when its
    board's listing failed (404: the board vanished since it was listed). Each board whose
    tasks were listed completely gets its ``task_coverage`` row (:data:`TASK_COVERAGE_HINTS`)."""

    @dlt.resource(
        name="tasks",
        primary_key="id",
        write_disposition="merge",
        parallelized=True,
        columns=hints(TASK_COLUMNS),
    )
    def _tasks() -> Iterator[Any]:
        pulled_at = int(client.now)
        rows = []
        covered: list[dict[str, Any]] = []  # boards whose tasks were listed completely
        unlisted: list[int] = []  # boards whose tasks were not (completely) listed
        # up to max_in_flight boards at once; their rows gathered in any order
        for board_rows in in_parallel(
            [partial(board_tasks, client, b, pulled_at, covered, unlisted) for b in board_list()],
            client.max_in_flight,
        ):
            rows.extend(board_rows)
        changed = [live(r) for r in only_changed(rows, "id")]
        where, args = outside_boards(unlisted)
        seen = {r["id"] for r in rows}
        whole = deletions_allowed(client.stats.quarantine, "tasks", True)
        gone = vanished("tasks", "id", seen, whole, int(client.now), where, args)
        yield from listing_tables(client, "tasks", TASK_COLUMNS, changed, gone)
        if covered:
            yield dlt.mark.with_hints(covered, TASK_COVERAGE_HINTS, create_table_variant=True)

    return _tasks


def board_tasks(
    client: ConnecteamClient,
    board: dict[str, Any],
    pulled_at: int,
    covered: list[dict[str, Any]],
    unlisted: list[int],
) -> Iterator[list[dict[str, Any]]]:
    """One board's task rows, as one list (``GET /tasks/v1/taskboards/{taskBoardId}/tasks``,
    ``status=all``), its completeness noted: its ``task_coverage`` row (``pulled_at``, epoch
    seconds, UTC) appended to ``covered`` when its tasks were listed completely, else its id to
    ``unlisted``. A listing of several pages without a total is complete when nothing looks
    gone, or a second pass confirms what does (:func:`~..listing.confirmed_gone`). A board that
    vanished since it was listed (404) is skipped and unlisted.
    """
    board_id = int(board["id"])
    try:
        progress = Progress(f"tasks[{board_id}]", logger=logger)
        listing = partial(
            client.pages, STREAMS["tasks"], {"status": "all"}, {"taskBoardId": board_id}
        )
        listed, complete = complete_listing(listing(), progress.page)
        board_rows = [task_row(board_id, t) for t in listed]
        if complete is None:  # several pages without a total: confirm what looks gone
            seen = {r["id"] for r in board_rows}
            loaded = live_keys("tasks", "id", where="task_board_id = %s", args=(board_id,))
            missing = {str(row[0]) for row in loaded} - seen
            again = second_pass(listing, _task_id)
            complete = not missing or bool(
                confirmed_gone(f"tasks[{board_id}]", missing, seen, None, again)
            )
        if complete:
            covered.append({"task_board_id": board_id, "pulled_at": pulled_at})
        else:
            unlisted.append(board_id)
        progress.done()
        yield board_rows
    except ParentNotFoundError as exc:
        client.skip_parent(exc, "tasks")
        unlisted.append(board_id)


def outside_boards(unlisted: list[int]) -> tuple[str, tuple[int, ...]]:
    """The SQL condition (and its parameters) of the loaded tasks a run may mark deleted: all
    but those of the ``unlisted`` boards (whose tasks were not listed completely)."""
    where = (
        "task_board_id is null or task_board_id not in ({})".format(
            ", ".join(["%s"] * len(unlisted))
        )
        if unlisted
        else "true"
    )
    return where, tuple(unlisted)


def _task_id(task: dict[str, Any]) -> str:
    """A task's key as its row keeps it (:func:`task_row`)."""
    return str(task_row(0, task)["id"])


def task_row(board_id: int, task: dict[str, Any]) -> dict[str, Any]:
    """One task (``ResponseTask``) of board ``board_id`` as a warehouse row."""
    return {
        "id": str(task["id"]),
        "task_board_id": board_id,
        "title": task.get("title"),
        "status": task.get("status"),
        "type": task.get("type"),
        "start_time": task.get("startTime"),
        "due_date": task.get("dueDate"),
        "is_archived": task.get("isArchived"),
        "user_ids": task.get("userIds") or [],
        "label_ids": task.get("labelIds") or [],
        "sub_tasks": task.get("subTasks") or [],
        "description": task.get("description") or [],
    }


RESOURCES: Builders = {
    "task_boards": lambda run: named_listing(run.client, "task_boards", run.task_boards),
    "tasks": lambda run: tasks(run.client, run.task_boards),
}
"""This domain's streams and how each one's resource is built for a run."""
