"""Deletions are inferred only from a consistent listing. Offset paging shifts under a
concurrent deletion: the emulator (a real server on 127.0.0.1) deletes the first record of a
listing right after serving its first page, so the record that was first on page two moves to
page one and the sync never sees it. A still-existing record is never marked deleted for that;
the next, consistent run marks the record that is really gone."""

from __future__ import annotations

import pytest
from conftest import NOW, point_at, query

from pipelines import run_sync
from sources.configuration import resolve


def marked(warehouse, table: str, key: str) -> dict[str, int]:
    rows = query(warehouse, f"select {key}, deleted_at from connecteam.{table} where is_deleted")
    return {str(k): at for k, at in rows}


def live_ids(server, stream: str) -> set[str]:
    """The ids the emulator holds now."""
    dataset = server.state.dataset
    if stream == "shifts":
        return {str(r["id"]) for rows in dataset.shifts.values() for r in rows}
    return {str(d["id"]) for d in dataset.user_documents.values()}


CASES = {
    # stream: (emulator size, warehouse key column, synced with, page maximum)
    "shifts": ({"schedulers": 1, "shifts": 1400, "users": 60}, "id", ("schedulers",), 500),
    "user_documents": ({"users": 400, "documents_fraction": 0.9}, "id", (), 100),
}


@pytest.mark.parametrize("paging_total", [False, True], ids=["no_total", "total"])
@pytest.mark.parametrize("stream", list(CASES))
def test_a_deletion_between_two_pages_marks_nothing_then_the_next_run_marks_it(
    start_emulator, warehouse, monkeypatch, stream, paging_total
):
    size, key, with_streams, page = CASES[stream]
    server = start_emulator(**size, paging_total=paging_total)
    point_at(monkeypatch, server)
    streams = (*with_streams, stream)
    first = run_sync(streams, project=resolve())
    loaded = first.rows[stream]
    assert loaded > 2 * page  # three pages or more: a later page's offsets can shift
    assert marked(warehouse, stream, key) == {}

    before = live_ids(server, stream)
    server.state.options.delete_while_paging[stream] = 1
    second = run_sync(streams, project=resolve())
    assert server.state.options.delete_while_paging[stream] == 0  # the deletion happened
    deleted = before - live_ids(server, stream)
    assert len(deleted) == 1
    # the listing skipped a record that still exists: nothing is marked, that one least of all
    assert marked(warehouse, stream, key) == {}
    assert second.failed_streams == {}

    # (shifts with paging.total: the run's changes pass, newest first, took the deletion's page;
    # its total still matched, so the run loaded no change and marked nothing either)
    third = run_sync(streams, project=resolve())  # consistent again: the real deletion, and only it
    assert marked(warehouse, stream, key) == dict.fromkeys(deleted, int(NOW))
    assert third.rows[stream] >= 1
    if stream == "shifts":
        changes = query(
            warehouse,
            "select count(*) from connecteam.shift_versions where is_deleted",
        )
        assert changes == [(1,)]  # the history holds one deletion, never a false cancel
