"""A burst of oversize bodies does not stop the fold: 200 quarantined bodies of 1 MiB are folded
by a fresh process whose own peak memory (``VmHWM``) stays within the fold's target in
benchmarks/webhooks_fold.py, the inbox read and loaded in batches and rounds bounded by bytes.
Real SQLite inbox, real DuckDB warehouse."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest

from benchmarks.webhooks_fold import (
    BURST_DUCKDB_LIMIT,
    FOLD_PEAK_MIB,
    fill_refused,
    fold_in_child,
)
from sources.configuration import resolve

BODIES = 200
SIZE = 2**20


def test_the_inbox_is_read_in_batches_bounded_by_rows_and_bytes(tmp_path: Path) -> None:
    from inbox import Inbox, RefusedBody

    inbox = Inbox(f"sqlite:///{tmp_path / 'inbox.sqlite3'}")
    sizes = [10, 700, 300, 1500, 5, 5, 5, 400, 600, 2]  # one body beyond the cap on its own
    inbox.insert_quarantine(
        [
            RefusedBody(422, "malformed", b"x" * n + b"%d" % i, n, None, 0.0)
            for i, n in enumerate(sizes)
        ]
    )
    batches = list(inbox.unfolded_quarantine(batch_size=3, max_bytes=1000))
    inbox.close()
    ids = [row[0] for batch in batches for row in batch]
    assert ids == sorted(ids) and len(ids) == len(set(ids)) == len(sizes)  # each once, in order
    weights = [[len(row[7]) for row in batch] for batch in batches]
    assert all(len(w) <= 3 for w in weights)
    assert all(sum(w) <= 1000 or len(w) == 1 for w in weights), weights
    assert any(len(w) == 1 and w[0] > 1000 for w in weights)


@pytest.mark.slow
def test_200_quarantined_bodies_of_1_mib_fold_within_the_memory_target(tmp_path: Path) -> None:
    from inbox import Inbox

    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    fill_refused(inbox_url, BODIES, SIZE)
    warehouse = tmp_path / "wh" / "warehouse.duckdb"
    env = dict(os.environ, DESTINATION__DUCKDB__CREDENTIALS=str(warehouse),
               WFM_SYNC_DUCKDB_MEMORY_LIMIT=BURST_DUCKDB_LIMIT)  # fmt: skip

    result = fold_in_child(inbox_url, env)

    assert result["quarantined"] == BODIES
    assert result["peak_mib"] <= FOLD_PEAK_MIB, result
    inbox = Inbox(inbox_url)
    counts = inbox.counts()
    inbox.close()
    assert counts["quarantine"] == BODIES and counts["quarantine_unfolded"] == 0
    with duckdb.connect(str(warehouse), read_only=True) as con:
        rows, keys, sizes = con.execute(
            "select count(*), count(distinct quarantine_key), sum(octet_length(body)) "
            "from webhooks.quarantine"
        ).fetchone()
    assert rows == keys == BODIES and sizes == BODIES * SIZE


def test_refused_bodies_arriving_during_a_fold_wait_for_the_next_one(
    tmp_path: Path, warehouse: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inbox import Inbox, RefusedBody
    from pipelines.fold import run_fold

    inbox_url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    inbox = Inbox(inbox_url)

    def refused(n: int, tag: str) -> list[RefusedBody]:
        return [RefusedBody(413, "too large", b"%s-%d-" % (tag.encode(), i) + b"x" * 600, 610,
                            None, 1.7e9 + i) for i in range(n)]  # fmt: skip

    inbox.insert_quarantine(refused(6, "before"))
    mark_folded = Inbox.mark_folded
    arrivals = 0

    def flooded(self: Inbox, *args: object, **kwargs: object) -> None:
        nonlocal arrivals
        mark_folded(self, *args, **kwargs)  # type: ignore[arg-type]
        if arrivals < 30:  # a flood of 413s keeps arriving while the fold works in rounds
            inbox.insert_quarantine(refused(2, f"during{arrivals}"))
            arrivals += 1

    monkeypatch.setattr(Inbox, "mark_folded", flooded)
    summary = run_fold(
        batch_bytes=1000, round_bytes=1000, project=resolve(inbox_url=inbox_url)
    )  # 2 bodies per round

    assert summary.quarantined == 6  # only what was there when the fold began
    assert 1 <= arrivals < 30  # the fold ended while the flood went on
    assert inbox.counts()["quarantine_unfolded"] == 2 * arrivals
    inbox.close()
