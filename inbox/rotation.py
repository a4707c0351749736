"""A rotation of the receiver's token and signing secret, followed in the inbox by every receiver
on it: when the new credentials were first accepted and when the previous ones were last accepted.

``inbox_rotations``
    One row per rotation: ``current_fingerprint`` and ``previous_fingerprint``
    (:func:`fingerprint` of the new and of the replaced credentials: digests, never the secrets),
    ``current_seen`` (epoch seconds UTC: the first delivery accepted with the new credentials
    only) and ``previous_used`` (epoch seconds UTC: the last delivery accepted with a previous
    token or secret). Keyed by the pair, so rotating A to B and later back to A starts afresh;
    the row of the opposite rotation (B to A after A to B) is deleted once the new credentials
    are seen.

The previous credentials are retired once the new ones have been seen and the previous ones have
not been used for the grace, counted from the later of the two times (:meth:`Rotation.retired`).
:class:`Rotation` keeps both times in memory (no I/O per request); the refusal recorder
(:class:`inbox.refusals.RefusalRecorder`) writes and re-reads them with its counts,
about once a second.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from .tables import dialect_insert

metadata = sa.MetaData()

rotations_table = sa.Table(
    "inbox_rotations",
    metadata,
    sa.Column("current_fingerprint", sa.String(64), primary_key=True),
    sa.Column("previous_fingerprint", sa.String(64), primary_key=True),
    sa.Column("current_seen", sa.Float),
    sa.Column("previous_used", sa.Float),
)


def fingerprint(token: str | None, signing_secret: str | None) -> str:
    """A digest naming one token and signing secret pair (64 hex characters; SHA-256 of both, so
    the inbox never holds either)."""
    text = f"wfm-sync credentials\0{token or ''}\0{signing_secret or ''}"
    return hashlib.sha256(text.encode()).hexdigest()


def _earliest(stored: Any, new: Any) -> Any:
    return sa.case((new.is_(None), stored), (stored.is_(None), new), (new < stored, new),
                   else_=stored)  # fmt: skip


def _latest(stored: Any, new: Any) -> Any:
    return sa.case((new.is_(None), stored), (stored.is_(None), new), (new > stored, new),
                   else_=stored)  # fmt: skip


def _min(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


def _max(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


@dataclass
class Rotation:
    """One rotation as this receiver knows it (its own sightings and the inbox's, as of the last
    :meth:`sync`).

    Args:
        current: :func:`fingerprint` of the new token and secret.
        previous: :func:`fingerprint` of the replaced ones (a side not rotated counts with its
            current value).
    """

    current: str
    previous: str
    current_seen: float | None = None
    """Epoch seconds: the first delivery accepted with the new credentials only, or ``None``."""
    previous_used: float | None = None
    """Epoch seconds: the last delivery accepted with a previous token or secret, or ``None``."""
    _unwritten_seen: float | None = field(default=None, init=False)
    _unwritten_used: float | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def saw_current(self, at: float) -> None:
        """A delivery made with the new credentials only was accepted at ``at``; no I/O."""
        with self._lock:
            if self.current_seen is None or at < self.current_seen:
                self.current_seen = self._unwritten_seen = at

    def used_previous(self, at: float) -> None:
        """A delivery made with a previous token or secret was accepted at ``at``; no I/O."""
        with self._lock:
            self.previous_used = _max(self.previous_used, at)
            self._unwritten_used = _max(self._unwritten_used, at)

    def retired(self, now: float, grace: float) -> bool:
        """Whether the previous credentials are retired at ``now`` (epoch seconds): the new ones
        have been seen, and neither that sighting nor any use of the previous ones is less than
        ``grace`` seconds old."""
        seen, used = self.current_seen, self.previous_used
        return seen is not None and now > max(seen, seen if used is None else used) + grace

    def sync(self, conn: Connection) -> Callable[[], None]:
        """Write what this receiver saw since it last synced (the earliest sighting and the latest
        use are kept) and read what every receiver on the inbox saw, on ``conn``, in its
        transaction.

        Returns:
            What to call once that transaction has committed: it takes in the times read and
            forgets those written (left unwritten, they are written again at the next sync).

        Raises:
            sqlalchemy.exc.SQLAlchemyError: The inbox could not be written or read.
        """
        with self._lock:
            seen, used = self._unwritten_seen, self._unwritten_used
        t = rotations_table.c
        mine = (t.current_fingerprint == self.current) & (t.previous_fingerprint == self.previous)
        if seen is not None or used is not None:
            insert = dialect_insert(conn.engine, rotations_table)
            new = insert.excluded
            conn.execute(
                insert.on_conflict_do_update(
                    index_elements=["current_fingerprint", "previous_fingerprint"],
                    set_={
                        "current_seen": _earliest(t.current_seen, new.current_seen),
                        "previous_used": _latest(t.previous_used, new.previous_used),
                    },
                ),
                {
                    "current_fingerprint": self.current,
                    "previous_fingerprint": self.previous,
                    "current_seen": seen,
                    "previous_used": used,
                },
            )
        if seen is not None:  # the opposite rotation is over: a later one back starts afresh
            conn.execute(sa.delete(rotations_table).where(
                (t.current_fingerprint == self.previous) & (t.previous_fingerprint == self.current)
            ))  # fmt: skip
        row = conn.execute(sa.select(t.current_seen, t.previous_used).where(mine)).first()

        def committed() -> None:
            with self._lock:
                if self._unwritten_seen == seen:
                    self._unwritten_seen = None
                if self._unwritten_used == used:
                    self._unwritten_used = None
                if row is not None:
                    self.current_seen = _min(self.current_seen, row.current_seen)
                    self.previous_used = _max(self.previous_used, row.previous_used)

        return committed
