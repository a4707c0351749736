"""The ``quarantine`` resource of the ``webhooks`` source: refused bodies, in byte-bounded
batches."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import dlt
from dlt.common.schema.typing import TMergeDispositionDict
from dlt.sources import DltResource

from inbox.batches import (
    DEFAULT_BATCH_BYTES,
    DEFAULT_QUARANTINE_ROWS,
    RoundBudget,
    max_unfolded_key,
)
from inbox.store import Inbox
from inbox.tables import quarantine_table

INSERT_ONLY: TMergeDispositionDict = {"disposition": "merge", "strategy": "insert-only"}
"""The write disposition of the fold's tables: a key already in the warehouse is skipped."""


def max_unfolded_quarantine_id(inbox: Inbox) -> int:
    """The largest ``quarantine_id`` of ``inbox`` not yet folded (0: none): the bound one fold
    takes once, so refused bodies arriving during the fold wait for the next one."""
    return max_unfolded_key(inbox.engine, quarantine_table)


def quarantine(
    inbox: Inbox,
    read_ids: list[int],
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    budget: RoundBudget | None = None,
    upto_id: int | None = None,
) -> DltResource:
    """``quarantine``: refused bodies, insert-only on ``quarantine_key`` (receipt time + body),
    read from the inbox and handed to dlt in batches of at most ``batch_bytes`` bytes of bodies
    (rows as :meth:`Inbox.unfolded_quarantine` yields them), none with a ``quarantine_id``
    past ``upto_id`` (``None``: the largest unfolded one at the first read); their
    ``quarantine_id`` are appended to ``read_ids``. Stops reading once ``budget`` (shared with
    the events) is spent."""
    round_budget = budget or RoundBudget()

    @dlt.resource(
        name="quarantine",
        primary_key="quarantine_key",
        write_disposition=INSERT_ONLY,
        columns={
            "body": {"data_type": "binary"},
            "received_at": {"data_type": "timestamp"},
        },
    )
    def _quarantine() -> Iterator[list[dict[str, Any]]]:
        for rows in inbox.unfolded_quarantine(DEFAULT_QUARANTINE_ROWS, batch_bytes, upto_id):
            read_ids.extend(r[0] for r in rows)
            out = [quarantine_row(*row) for row in rows]
            round_budget.spend(sum(len(r[7]) for r in rows))
            del rows  # the bodies live on in ``out`` only while dlt writes the batch
            yield out
            if round_budget.cut_short:  # by these bodies or by the events
                return

    return _quarantine


def quarantine_row(
    qid: int, received_at: float, status: int, reason: str, ctype: str | None, size: int,
    truncated: bool, body: Any,
) -> dict[str, Any]:  # fmt: skip
    """One ``inbox_quarantine`` row (as :meth:`Inbox.unfolded_quarantine` yields it) as a
    ``quarantine`` row: ``quarantine_key`` (SHA-256 of receipt time and body), ``received_at``
    (UTC), ``status_code``, ``reason``, ``content_type``, ``body_bytes``, ``is_truncated``,
    ``body`` (bytes) and ``body_text`` (UTF-8, undecodable bytes replaced)."""
    raw = bytes(body)
    return {
        "quarantine_key": hashlib.sha256(repr(received_at).encode() + raw).hexdigest(),
        "received_at": datetime.fromtimestamp(received_at, UTC),
        "status_code": status,
        "reason": reason,
        "content_type": ctype,
        "body_bytes": size,
        "is_truncated": bool(truncated),
        "body": raw,
        "body_text": raw.decode("utf-8", errors="replace"),
    }
