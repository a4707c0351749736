"""The quarantine's byte budget: the bodies kept in ``inbox_quarantine`` never pass
``quarantine_max_bytes`` (``WEBHOOKS__QUARANTINE_MAX_BYTES``) for long.

Each transaction that quarantines bodies adds their bytes to the ``quarantine_bytes`` counter
(:data:`inbox.tables.COUNTERS`; its row lock makes concurrent receivers on one
PostgreSQL inbox take turns) and, when the total passes the budget, deletes bodies in the same
transaction until it fits again: first those the fold already loaded (the warehouse has them),
then the oldest not yet folded, which are lost and counted (``quarantine_dropped``,
``quarantine_dropped_bytes``; :meth:`inbox.Inbox.counts`). The bodies just stored are
the newest, so they go last. Disk use therefore stays within the budget plus one group commit's
bodies (SQLite reuses the freed pages; its file does not shrink without ``VACUUM``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa

from .tables import counters_table, held_bytes, quarantine_table

logger = logging.getLogger("inbox")

_SCAN = 500
"""Rows looked at per query when choosing what to drop."""


def add_to_counter(conn: sa.Connection, name: str, amount: int) -> int:
    """Add ``amount`` to counter ``name`` inside ``conn``'s transaction (locking its row until
    the commit); returns the new value."""
    c = counters_table.c
    update = (
        sa.update(counters_table)
        .where(c.name == name)
        .values(value=c.value + amount)
        .returning(c.value)
    )
    return int(conn.execute(update).scalar_one())


def keep_within_budget(conn: sa.Connection, added: int, budget: int | None) -> int:
    """Count ``added`` bytes of newly quarantined bodies and, when the bodies held then pass
    ``budget`` bytes, delete bodies until they fit (see the module docstring).

    Args:
        conn: A connection inside the transaction that inserted the new bodies.
        added: Bytes of the bodies that transaction inserted.
        budget: Most bytes of bodies to keep; ``None`` keeps everything.

    Returns:
        Bodies deleted that the fold had not read yet (0 when within the budget).
    """
    held = add_to_counter(conn, "quarantine_bytes", added)
    if budget is None or held <= budget:
        return 0
    excess = held - budget
    freed, lost, lost_bytes = 0, 0, 0
    q = quarantine_table.c
    size = sa.func.length(q.body)
    for unfolded in (False, True):  # the warehouse's copies first, then the oldest unread
        after = 0
        while freed < excess:
            state = q.folded_at.is_(None) if unfolded else q.folded_at.is_not(None)
            rows: Sequence[tuple[int, int | None]] = (
                conn.execute(
                    sa.select(q.quarantine_id, size)
                    .where(state, q.quarantine_id > after)
                    .order_by(q.quarantine_id)
                    .limit(_SCAN)
                )
                .tuples()
                .all()
            )
            if not rows:
                break
            doomed: list[int] = []
            for quarantine_id, nbytes in rows:
                doomed.append(int(quarantine_id))
                freed += int(nbytes or 0)
                if unfolded:
                    lost, lost_bytes = lost + 1, lost_bytes + int(nbytes or 0)
                if freed >= excess:
                    break
            _delete(conn, doomed)
            after = doomed[-1]
    add_to_counter(conn, "quarantine_bytes", -freed)
    if lost:
        add_to_counter(conn, "quarantine_dropped", lost)
        add_to_counter(conn, "quarantine_dropped_bytes", lost_bytes)
        logger.warning(
            "inbox: the quarantine passed its budget of %d bytes; dropped the %d oldest "
            "unfolded bodies (%d bytes)", budget, lost, lost_bytes,
        )  # fmt: skip
    return lost


def _delete(conn: sa.Connection, ids: Sequence[int]) -> None:
    conn.execute(sa.delete(quarantine_table).where(quarantine_table.c.quarantine_id.in_(ids)))


def recount(conn: sa.Connection) -> None:
    """Set ``quarantine_bytes`` to the bytes of the bodies held now (after rows were deleted
    other than by the budget)."""
    conn.execute(
        sa.update(counters_table)
        .where(counters_table.c.name == "quarantine_bytes")
        .values(value=held_bytes())
    )


def counters(conn: sa.Connection) -> dict[str, int]:
    """Every counter row, ``{name: value}``."""
    rows = conn.execute(sa.select(counters_table.c.name, counters_table.c.value)).tuples()
    return {str(name): int(value) for name, value in rows}
