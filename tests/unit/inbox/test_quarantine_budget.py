"""The quarantine's byte budget (``inbox.quarantine_budget``): what a transaction that quarantines
bodies deletes when the bodies held pass ``quarantine_max_bytes`` (the warehouse's copies first,
then the oldest unread, counted as dropped; the newest last) and the counters it keeps. The module
is about storage, so each test uses the inbox's own tables in an SQLite file under ``tmp_path``;
it starts nothing (no receiver, no server, no subprocess)."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
import sqlalchemy as sa

from inbox.quarantine_budget import counters, keep_within_budget, recount
from inbox.tables import add_missing_counters, metadata, quarantine_table

Body = tuple[bytes, bool]
"""A quarantined body and whether the fold already loaded it."""


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[sa.Engine]:
    """An empty inbox's tables and counters in an SQLite file."""
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'inbox.sqlite3'}")
    metadata.create_all(engine)
    add_missing_counters(engine)
    yield engine
    engine.dispose()


def quarantine(engine: sa.Engine, bodies: Sequence[Body], budget: int | None) -> int:
    """One transaction as the inbox's writer runs it: insert ``bodies``, then keep the budget."""
    rows = [{"received_at": 1.0, "status_code": 400, "reason": "malformed",
             "body_bytes": len(body), "is_truncated": False, "body": body,
             "folded_at": 2.0 if folded else None} for body, folded in bodies]  # fmt: skip
    with engine.begin() as conn:
        conn.execute(quarantine_table.insert(), rows)
        return keep_within_budget(conn, sum(len(b) for b, _ in bodies), budget)


def held(engine: sa.Engine) -> list[bytes]:
    """The bodies held, oldest first."""
    q = quarantine_table.c
    with engine.connect() as conn:
        return list(conn.execute(sa.select(q.body).order_by(q.quarantine_id)).scalars())


def count(engine: sa.Engine) -> dict[str, int]:
    with engine.connect() as conn:
        return counters(conn)


def dropped(engine: sa.Engine) -> tuple[int, int, int]:
    """``(quarantine_bytes, quarantine_dropped, quarantine_dropped_bytes)``."""
    got = count(engine)
    return got["quarantine_bytes"], got["quarantine_dropped"], got["quarantine_dropped_bytes"]


OLD = [(b"a" * 100, True), (b"b" * 100, False), (b"c" * 100, True)]
"""Three bodies of 100 bytes, oldest first: folded, unread, folded."""


def test_within_the_budget_nothing_is_deleted(engine: sa.Engine) -> None:
    assert quarantine(engine, OLD, budget=None) == 0
    assert quarantine(engine, [(b"d" * 100, False)], budget=400) == 0  # exactly at the budget
    assert held(engine) == [b"a" * 100, b"b" * 100, b"c" * 100, b"d" * 100]
    assert count(engine) == {"quarantine_bytes": 400, "quarantine_dropped": 0,
                             "quarantine_dropped_bytes": 0, "health_probe": 0}  # fmt: skip
    assert quarantine(engine, [(b"x" * 10_000, False)], budget=None) == 0  # no budget
    assert len(held(engine)) == 5 and count(engine)["quarantine_bytes"] == 10_400


def test_the_warehouses_copies_go_first_even_when_an_unread_body_is_older(
    engine: sa.Engine,
) -> None:
    """400 bytes held against a budget of 250: 150 to free; the two folded bodies (200 bytes)
    go, the older unread one stays, nothing is lost."""
    quarantine(engine, OLD, budget=None)
    assert quarantine(engine, [(b"d" * 100, False)], budget=250) == 0
    assert held(engine) == [b"b" * 100, b"d" * 100]
    assert count(engine)["quarantine_bytes"] == 200
    assert count(engine)["quarantine_dropped"] == 0


def test_then_the_oldest_unread_go_and_are_counted_as_lost(
    engine: sa.Engine, caplog: pytest.LogCaptureFixture
) -> None:
    """400 bytes against 150: 250 to free; the folded 200, then the oldest unread (100), which
    is lost; the body just stored is the newest and stays."""
    quarantine(engine, OLD, budget=None)
    with caplog.at_level(logging.WARNING, logger="inbox"):
        assert quarantine(engine, [(b"d" * 100, False)], budget=150) == 1
    assert held(engine) == [b"d" * 100]
    assert dropped(engine) == (100, 1, 100)
    assert "dropped the 1 oldest unfolded bodies (100 bytes)" in caplog.text


def test_a_body_larger_than_the_whole_budget_is_not_kept_either(engine: sa.Engine) -> None:
    assert quarantine(engine, [(b"z" * 100, False)], budget=50) == 1
    assert held(engine) == []
    assert dropped(engine) == (0, 1, 100)


def test_a_budget_needing_more_rows_than_one_scan_frees_exactly_enough(
    engine: sa.Engine,
) -> None:
    """1,200 folded bodies of 10 bytes (more than one scan of 500 rows), then one unread of 10:
    12,010 bytes against 1,000, so 1,101 folded bodies (11,010 bytes) go, the oldest first."""
    quarantine(engine, [(f"{i:010d}".encode(), True) for i in range(1200)], budget=None)
    assert quarantine(engine, [(b"new-body-1", False)], budget=1000) == 0
    bodies = held(engine)
    assert len(bodies) == 100
    assert bodies[0] == b"0000001101" and bodies[-2] == b"0000001199"
    assert bodies[-1] == b"new-body-1"
    assert count(engine)["quarantine_bytes"] == 1000


def test_recount_sets_the_counter_to_the_bodies_held(engine: sa.Engine) -> None:
    quarantine(engine, OLD, budget=None)
    with engine.begin() as conn:
        conn.execute(sa.delete(quarantine_table).where(quarantine_table.c.folded_at.is_not(None)))
        assert counters(conn)["quarantine_bytes"] == 300  # stale until recounted
        recount(conn)
    assert count(engine)["quarantine_bytes"] == 100
    with engine.begin() as conn:
        conn.execute(sa.delete(quarantine_table))
        recount(conn)
    assert count(engine)["quarantine_bytes"] == 0  # an empty quarantine holds 0, not null
