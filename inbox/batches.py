"""Reading unfolded inbox rows in batches bounded by rows and by bytes of body, and the byte
budget of one round of a fold.

A fold holds one batch of bodies in memory at a time (dlt writes each batch out before the next
is read), so batches are bounded by what they weigh, not only by how many rows they hold: a
burst of 1 MiB bodies in batches of 100,000 rows would be 100 GB. And it loads a backlog in
rounds (:class:`RoundBudget`), because DuckDB holds the rows of one load's transaction in memory
until it commits.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import Engine

DEFAULT_BATCH_BYTES = 32 * 2**20
"""Bytes of bodies per batch a fold reads from the inbox (32 MiB)."""
DEFAULT_ROUND_BYTES = 64 * 2**20
"""Bytes of bodies a fold loads in one round (one dlt load package, one transaction) before it
marks them folded and reads on (64 MiB); a round may end one batch per table past it."""
DEFAULT_QUARANTINE_ROWS = 1_000
"""Refused bodies per batch a fold reads from the inbox."""


@dataclass
class RoundBudget:
    """The bytes of bodies one round of a fold may read (``limit``, ``None``: no limit), what it
    has read (``spent``) and whether it stopped reading because the budget was spent
    (``cut_short``: the inbox may hold more)."""

    limit: int | None = None
    spent: int = 0
    cut_short: bool = False

    def spend(self, size: int) -> bool:
        """Count ``size`` bytes read; whether the budget is now spent (then ``cut_short``)."""
        self.spent += size
        if self.limit is not None and self.spent >= self.limit:
            self.cut_short = True
        return self.cut_short


def keyset_batches(
    engine: Engine,
    table: sa.Table,
    columns: Sequence[sa.ColumnElement[Any]],
    batch_size: int,
    max_bytes: int,
    upto_id: int | None = None,
) -> Iterator[list[tuple[Any, ...]]]:
    """Unfolded rows of ``table`` (``folded_at`` NULL) in key order, in batches of at most
    ``batch_size`` rows and ``max_bytes`` bytes of ``body`` (a single larger body is a batch of
    its own), read by key range: one short query for the next batch's keys and body sizes, one
    for its rows. No transaction stays open between batches.

    Args:
        engine: The inbox database.
        table: ``inbox_events`` or ``inbox_quarantine``: an integer primary key, ``body``
            and ``folded_at``.
        columns: The columns of each row (the key first).
        batch_size: Most rows per batch (at least 1).
        max_bytes: Most bytes of ``body`` per batch (at least one row).
        upto_id: Read no row with a larger key (``None``: up to the largest unfolded key when
            the first batch is read, so a read ends while rows keep arriving).

    Yields:
        Lists of row tuples, never empty.
    """
    key = table.primary_key.columns.values()[0]
    unfolded = table.c.folded_at.is_(None)
    if upto_id is None:
        upto_id = max_unfolded_key(engine, table)
    batch_size, last = max(1, batch_size), 0  # keys start at 1
    while True:
        sizes = (
            sa.select(key, sa.func.length(table.c.body))
            .where(unfolded, key > last, key <= upto_id)
            .order_by(key)
            .limit(batch_size)
        )
        with engine.connect() as conn:
            found = conn.execute(sizes).all()
        if not found:
            return
        end, cut = batch_end([(int(cast(int, k)), int(cast(int, n) or 0)) for k, n in found],
                             max_bytes)  # fmt: skip
        rows = sa.select(*columns).where(unfolded, key > last, key <= end).order_by(key)
        with engine.connect() as conn:
            batch = [tuple(r) for r in conn.execute(rows)]
        if batch:
            yield batch
        last = end
        if not cut and len(found) < batch_size:
            return


def max_unfolded_key(engine: Engine, table: sa.Table) -> int:
    """The largest key of ``table``'s unfolded rows (``folded_at`` NULL), 0 when there is none
    (keys start at 1): the snapshot bound of one fold's read of ``table``."""
    key = table.primary_key.columns.values()[0]
    with engine.connect() as conn:
        value = conn.execute(sa.select(sa.func.max(key)).where(table.c.folded_at.is_(None)))
        found = value.scalar()
    return int(found) if found is not None else 0


def batch_end(sizes: list[tuple[int, int]], max_bytes: int) -> tuple[int, bool]:
    """The last key of the batch that ``sizes`` (``(key, body bytes)`` in key order, not empty)
    starts, and whether the byte cap cut it short: rows are taken while their bodies add up to
    at most ``max_bytes``, and always the first."""
    total = 0
    for position, (_key, size) in enumerate(sizes):
        total += size
        if total > max_bytes and position > 0:
            return sizes[position - 1][0], True
    return sizes[-1][0], False
